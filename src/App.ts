import { Effect, Layer, Option, Redacted } from "effect"
import { GuildRepo } from "../shards/guild/Repo.ts"
import { LiveActors } from "../shards/LiveActors.ts"
import { clientSharding } from "../shards/Cluster.ts"
import { clusterPlatformLayer, embeddedActorsLayer } from "../shards/Layers.ts"
import { ClusterStats } from "../shards/Stats.ts"
import { DmsHttp } from "./dms/Http.ts"
import { DmsRepo } from "./dms/Repo.ts"
import { ReadStatesRepo } from "./messages/readStates/Repo.ts"
import { UserEvents } from "../shards/UserEvents.ts"
import { Acl } from "./admin/Acls.ts"
import { GuildReloader } from "./admin/GuildReloader.ts"
import { AdminHttp } from "./admin/Http.ts"
import { ReportsHttp } from "./reports/Http.ts"
import { AdminReportsHttp } from "./admin/reports/Http.ts"
import { authoritySweep } from "./admin/reports/AuthoritySubmissions.ts"
import { services as reportsServices } from "./admin/reports/Services.ts"
import { AdminBansHttp } from "./admin/bans/Http.ts"
import { AdminVoiceHttp } from "./admin/voice/Http.ts"
import { AdminLimitsHttp } from "./admin/limits/Http.ts"
import { WellKnownHttp } from "./wellknown/Http.ts"
import { StreamsHttp } from "./streams/Http.ts"
import { StreamPreviews } from "./streams/Previews.ts"
import { AdminDiscoveryHttp } from "./admin/discovery/Http.ts"
import { AdminAssetsHttp } from "./admin/assets/Http.ts"
import { AdminGuildsHttp } from "./admin/guilds/Http.ts"
import { IpBanList } from "./admin/bans/IpBanList.ts"
import { Limits } from "./platform/Limits.ts"
import { AdminMessagesHttp } from "./admin/messages/Http.ts"
import { adminMessageJobsSweep } from "./admin/messages/Job.ts"
import { AdminSearchHttp } from "./admin/search/Http.ts"
import { searchRefreshSweep } from "./admin/search/Job.ts"
import { AdminSystemDmsHttp } from "./admin/systemdms/Http.ts"
import { systemDmJobsSweep } from "./admin/systemdms/Job.ts"
import { BansRepo } from "./admin/bans/Repo.ts"
import { VoiceCatalog } from "./platform/VoiceCatalog.ts"
import { AdminUserLookupHttp } from "./admin/users/LookupHttp.ts"
import { AdminUserProfileHttp } from "./admin/users/ProfileHttp.ts"
import { AdminRepo } from "./admin/Repo.ts"
import { AdminUserSecurityHttp } from "./admin/users/SecurityHttp.ts"
import { services as adminServices } from "./admin/Services.ts"
import { AccountHttp } from "./account/Http.ts"
import { deletionJob } from "./account/Deletions.ts"
import { AccountLifecycleHttp } from "./account/LifecycleHttp.ts"
import { services as accountServices } from "./account/Services.ts"
import { AuthHttp } from "./auth/Http.ts"
import { LoginCompletion } from "./auth/LoginCompletion.ts"
import { OneTimeTokens } from "./auth/OneTimeTokens.ts"
import { services as authServices } from "./auth/Services.ts"
import { Sudo } from "./auth/Sudo.ts"
import { Passwords } from "./auth/Passwords.ts"
import { SessionCache } from "./auth/SessionCache.ts"
import { Sessions } from "./auth/Sessions.ts"
import { AppConfig, isClusterMode, type Settings } from "./platform/Config.ts"
import { metricsLayer, metricsSwitch } from "./platform/MetricsExport.ts"
import { Actors } from "./guilds/Actors.ts"
import { UserActors } from "./guilds/UserActors.ts"
import { GuildsHttp } from "./guilds/Http.ts"
import { GuildManagementHttp } from "./guilds/management/Http.ts"
import { AuditLogHttp } from "./auditlog/Http.ts"
import { DiscoveryHttp } from "./discovery/Http.ts"
import { MessagesHttp } from "./messages/Http.ts"
import { AttachmentFilesHttp } from "./messages/attachments/Http.ts"
import { ReadStatesHttp } from "./messages/readStates/Http.ts"
import { SavedMessagesHttp } from "./messages/saved/Http.ts"
import { MemesHttp } from "./memes/Http.ts"
import { HarvestHttp } from "./archives/Http.ts"
import { ArchiveFilesHttp } from "./archives/FileHttp.ts"
import { archiveJobsSweep } from "./archives/Job.ts"
import { AdminArchivesHttp } from "./admin/archives/Http.ts"
import { SearchHttp } from "./messages/search/Http.ts"
import { ScheduledMessagesHttp } from "./messages/scheduled/Http.ts"
import { ReactionsHttp } from "./messages/reactions/Http.ts"
import { PinsHttp } from "./messages/pins/Http.ts"
import { scheduledMessagesJob } from "./messages/scheduled/Sender.ts"
import { SelfDeletionHttp } from "./messages/selfDeletion/Http.ts"
import { selfDeletionJob } from "./messages/selfDeletion/Job.ts"
import { GatewayHttp } from "./gateway/Http.ts"
import { GifsHttp } from "./gifs/Http.ts"
import { gatewayCluster, gatewayLocal, ReconnectOnShutdown } from "./gateway/Services.ts"
import { ApplicationsHttp } from "./oauth2/ApplicationsHttp.ts"
import { OAuth2Http } from "./oauth2/OAuth2Http.ts"
import { services as oauth2Services } from "./oauth2/Services.ts"
import { RolesHttp } from "./roles/Http.ts"
import { ChannelsHttp } from "./channels/Http.ts"
import { ExpressionsHttp } from "./expressions/Http.ts"
import { MediaHttp } from "./media/Http.ts"
import { PacksHttp } from "./packs/Http.ts"
import { BansHttp } from "./bans/Http.ts"
import { MembersHttp } from "./members/Http.ts"
import { InvitesHttp } from "./invites/Http.ts"
import { WebhooksHttp } from "./webhooks/Http.ts"
import { WebhookExecutorLive } from "./webhooks/ExecutorLive.ts"
import { InboundWebhooksLive } from "./webhooks/inbound/Http.ts"
import { MediaStore } from "./media/MediaStore.ts"
import { HealthHttp } from "./health/Http.ts"
import { MetricsHttp } from "./admin/metrics/Http.ts"
import { Mailer } from "./mail/Mailer.ts"
import { MfaHttp } from "./mfa/Http.ts"
import { services as mfaServices } from "./mfa/Services.ts"
import { PhoneHttp } from "./phone/Http.ts"
import { services as phoneServices } from "./phone/Services.ts"
import { PushHttp } from "./push/Http.ts"
import { services as pushServices } from "./push/Services.ts"
import { RelationshipsHttp } from "./relationships/Http.ts"
import { services as relationshipsServices } from "./relationships/Services.ts"
import { SessionsHttp } from "./sessions/Http.ts"
import { services as sessionsServices } from "./sessions/Services.ts"
import { Sms } from "./sms/Sms.ts"
import { SsoAdminHttp, SsoHttp } from "./sso/Http.ts"
import { services as ssoServices } from "./sso/Services.ts"
import { AdminAuthenticationLive, UserAuthenticationLive } from "./http/AuthenticationLive.ts"
import { serve } from "./http/Server.ts"
import { UsersHttp } from "./users/Http.ts"
import { NotesHttp } from "./notes/Http.ts"
import { ConnectionsHttp } from "./connections/Http.ts"
import { SettingsHttp } from "./settings/Http.ts"
import { UsersRepo } from "./users/Repo.ts"
import { services as usersServices } from "./users/Services.ts"

/** `ADMIN_BOOTSTRAP_KEY`: how a fresh deployment gets its first operator. */
const bootstrapAdminKey = Layer.effectDiscard(
  Effect.gen(function*() {
    const { adminBootstrapKey } = yield* AppConfig
    if (Option.isNone(adminBootstrapKey)) return
    const repo = yield* AdminRepo
    yield* repo.createKey({ name: "bootstrap", acls: [Acl.all], createdBy: null, secret: Redacted.value(adminBootstrapKey.value) })
  })
)

const handlersLayer = Layer.mergeAll(
  AuthHttp,
  UsersHttp,
  SettingsHttp,
  NotesHttp,
  ConnectionsHttp,
  MfaHttp,
  PhoneHttp,
  RelationshipsHttp,
  PushHttp,
  SsoHttp,
  SsoAdminHttp,
  AccountHttp,
  AccountLifecycleHttp,
  SessionsHttp,
  GuildsHttp,
  GuildManagementHttp,
  AuditLogHttp,
  RolesHttp,
  ChannelsHttp,
  ExpressionsHttp,
  MediaHttp,
  PacksHttp,
  BansHttp,
  MembersHttp,
  InvitesHttp,
  DiscoveryHttp,
  MessagesHttp,
  AttachmentFilesHttp,
  ReadStatesHttp,
  SavedMessagesHttp,
  MemesHttp,
  HarvestHttp,
  ArchiveFilesHttp,
  SearchHttp,
  DmsHttp,
  ScheduledMessagesHttp,
  ReactionsHttp,
  PinsHttp,
  WebhooksHttp,
  InboundWebhooksLive,
  SelfDeletionHttp,
  GatewayHttp,
  GifsHttp,
  ApplicationsHttp,
  OAuth2Http,
  ReportsHttp,
  AdminHttp,
  AdminBansHttp,
  AdminUserLookupHttp,
  AdminUserProfileHttp,
  AdminUserSecurityHttp,
  AdminMessagesHttp,
  AdminDiscoveryHttp,
  AdminAssetsHttp,
  AdminGuildsHttp,
  AdminReportsHttp,
  AdminSystemDmsHttp,
  AdminSearchHttp,
  AdminVoiceHttp,
  AdminArchivesHttp,
  AdminLimitsHttp,
  WellKnownHttp,
  StreamsHttp,
  HealthHttp,
  MetricsHttp
  // The inbound webhook formats (src/webhooks/inbound/) post through the executor.
).pipe(Layer.provide([UserAuthenticationLive, AdminAuthenticationLive, WebhookExecutorLive]))

/** What every domain may use: storage, credentials, outgoing mail and texts. */
const sharedServices = Layer.mergeAll(
  UsersRepo.layer,
  Passwords.layer,
  Sessions.layer,
  AdminRepo.layer,
  BansRepo.layer,
  VoiceCatalog.layer,
  GuildRepo.layer,
  OneTimeTokens.layer,
  Mailer.layer,
  Sms.layer,
  MediaStore.layer
)

/**
 * The services of each domain. MFA sits below the others: sudo mode and the
 * login flows ask it whether a user has MFA and whether a proof is valid.
 */
const requestServices = Layer.mergeAll(
  Sudo.layer,
  LoginCompletion.layer,
  authServices,
  ssoServices,
  usersServices,
  accountServices,
  sessionsServices,
  phoneServices,
  relationshipsServices,
  DmsRepo.layer,
  ReadStatesRepo.layer,
  pushServices,
  oauth2Services,
  adminServices,
  reportsServices
).pipe(Layer.provideMerge(mfaServices), Layer.provideMerge(sharedServices))

/** The handles on guild and user actors, which the domain services below HTTP call. */
const actorClients = Layer.provideMerge(UserActors.layer, Actors.layer)

/** The API process: HTTP in front; in embedded mode it also hosts the only runner. */
export const apiLayer = (settings: Settings) => {
  // Gateway clients are told to reconnect before the server waits for its connections to end.
  const jobs = Layer.mergeAll(bootstrapAdminKey, deletionJob, scheduledMessagesJob, selfDeletionJob, adminMessageJobsSweep, authoritySweep, systemDmJobsSweep, searchRefreshSweep, archiveJobsSweep)
  const http = Layer.provide(ReconnectOnShutdown, serve(handlersLayer).pipe(Layer.provide(jobs)))
  if (isClusterMode(settings)) {
    return http.pipe(
      Layer.provide(GuildReloader.layerRedis),
      Layer.provideMerge(gatewayCluster),
      Layer.provideMerge(requestServices),
      Layer.provideMerge(Layer.mergeAll(actorClients, ClusterStats.layerRedis("api", true))),
      Layer.provideMerge(clientSharding(settings)),
      // Logins, relationships and user changes are told to users' sessions (UserEvents.ts);
      // ended sessions to every API process's cache (SessionCache.ts), changed IP bans to every one's list.
      // Changed limits to every process's copy (src/platform/Limits.ts).
      Layer.provideMerge(Layer.mergeAll(UserEvents.layerRedis, SessionCache.layerRedis, IpBanList.layerRedis, Limits.layerRedis, StreamPreviews.layerRedis)),
      Layer.provideMerge(metricsLayer),
      Layer.provideMerge(LiveActors.layer),
      Layer.provideMerge(clusterPlatformLayer),
      Layer.provide(metricsSwitch(settings.metrics.enabled))
    )
  }
  return http.pipe(
    Layer.provide(GuildReloader.layerLocal),
    Layer.provideMerge(gatewayLocal),
    Layer.provideMerge(requestServices),
    Layer.provideMerge(Layer.mergeAll(actorClients, ClusterStats.layerLocal("embedded"))),
    Layer.provideMerge(Layer.mergeAll(UserEvents.layerLocal, SessionCache.layerLocal, IpBanList.layerLocal, StreamPreviews.layerLocal)),
    Layer.provideMerge(metricsLayer),
    Layer.provideMerge(embeddedActorsLayer(settings)),
    Layer.provide(metricsSwitch(settings.metrics.enabled))
  )
}
