import { HttpApi, OpenApi } from "effect/http-api"
import { AccountApi } from "../account/Api.ts"
import { AccountLifecycleApi } from "../account/LifecycleApi.ts"
import { AdminApi } from "../admin/Api.ts"
import { AdminBansApi } from "../admin/bans/Api.ts"
import { AdminLimitsApi } from "../admin/limits/Api.ts"
import { WellKnownApi } from "../wellknown/Api.ts"
import { StreamsApi } from "../streams/Api.ts"
import { AdminMessagesApi } from "../admin/messages/Api.ts"
import { AdminSearchApi } from "../admin/search/Api.ts"
import { AdminSystemDmsApi } from "../admin/systemdms/Api.ts"
import { AdminDiscoveryApi } from "../admin/discovery/Api.ts"
import { AdminAssetsApi } from "../admin/assets/Api.ts"
import { AdminGuildsApi } from "../admin/guilds/Api.ts"
import { AdminReportsApi } from "../admin/reports/Api.ts"
import { AdminVoiceApi } from "../admin/voice/Api.ts"
import { AdminUserLookupApi } from "../admin/users/LookupApi.ts"
import { AdminUserProfileApi } from "../admin/users/ProfileApi.ts"
import { AdminUserSecurityApi } from "../admin/users/SecurityApi.ts"
import { AuthApi } from "../auth/Api.ts"
import { DsaReportsApi, ReportsApi } from "../reports/Api.ts"
import { GuildsApi } from "../guilds/Api.ts"
import { GuildManagementApi } from "../guilds/management/Api.ts"
import { AuditLogApi } from "../auditlog/Api.ts"
import { RolesApi } from "../roles/Api.ts"
import { ChannelsApi } from "../channels/Api.ts"
import { ExpressionsApi } from "../expressions/Api.ts"
import { MediaApi } from "../media/Api.ts"
import { PacksApi } from "../packs/Api.ts"
import { BansApi } from "../bans/Api.ts"
import { MembersApi } from "../members/Api.ts"
import { InvitesApi, PublicInvitesApi } from "../invites/Api.ts"
import { HealthApi } from "../health/Api.ts"
import { MetricsApi } from "../admin/metrics/Api.ts"
import { MfaApi } from "../mfa/Api.ts"
import { PhoneApi } from "../phone/Api.ts"
import { PushApi } from "../push/Api.ts"
import { RelationshipsApi } from "../relationships/Api.ts"
import { SessionsApi } from "../sessions/Api.ts"
import { SsoAdminApi, SsoApi } from "../sso/Api.ts"
import { UsersApi } from "../users/Api.ts"
import { NotesApi } from "../notes/Api.ts"
import { ConnectionsApi } from "../connections/Api.ts"
import { SettingsApi } from "../settings/Api.ts"
import { DiscoveryApi } from "../discovery/Api.ts"
import { MessagesApi } from "../messages/Api.ts"
import { AttachmentFilesApi } from "../messages/attachments/Api.ts"
import { ReadStatesApi } from "../messages/readStates/Api.ts"
import { SavedMessagesApi } from "../messages/saved/Api.ts"
import { MemesApi } from "../memes/Api.ts"
import { ArchiveFilesApi } from "../archives/FileApi.ts"
import { HarvestApi } from "../archives/Api.ts"
import { AdminArchivesApi } from "../admin/archives/Api.ts"
import { SearchApi } from "../messages/search/Api.ts"
import { DmsApi } from "../dms/Api.ts"
import { ScheduledMessagesApi } from "../messages/scheduled/Api.ts"
import { ReactionsApi } from "../messages/reactions/Api.ts"
import { PinsApi } from "../messages/pins/Api.ts"
import { SelfDeletionApi } from "../messages/selfDeletion/Api.ts"
import { GatewayApi } from "../gateway/Api.ts"
import { GifaApi, GifbApi } from "../gifs/Api.ts"
import { WebhooksApi, WebhookTokensApi } from "../webhooks/Api.ts"
import { InboundWebhooksApi } from "../webhooks/inbound/Api.ts"
import { ApplicationsApi, OAuth2ConsentApi, OAuth2TokensApi, PublicApplicationsApi } from "../oauth2/Api.ts"

/** The whole HTTP API: one definition for routing, validation, OpenAPI and clients. */
export class Api extends HttpApi.make("guildhall")
  .add(HealthApi)
  .add(MetricsApi)
  .add(AuthApi)
  .add(UsersApi)
  .add(SettingsApi)
  .add(NotesApi)
  .add(ConnectionsApi)
  .add(MfaApi)
  .add(PhoneApi)
  .add(RelationshipsApi)
  .add(PushApi)
  .add(SsoApi)
  .add(SsoAdminApi)
  .add(AccountApi)
  .add(AccountLifecycleApi)
  .add(SessionsApi)
  .add(GuildsApi)
  .add(GuildManagementApi)
  .add(AuditLogApi)
  .add(RolesApi)
  .add(ChannelsApi)
  .add(ExpressionsApi)
  .add(MediaApi)
  .add(PacksApi)
  .add(BansApi)
  .add(MembersApi)
  .add(InvitesApi)
  .add(PublicInvitesApi)
  .add(DiscoveryApi)
  .add(MessagesApi)
  .add(AttachmentFilesApi)
  .add(ReadStatesApi)
  .add(SavedMessagesApi)
  .add(MemesApi)
  .add(HarvestApi)
  .add(ArchiveFilesApi)
  .add(SearchApi)
  .add(DmsApi)
  .add(ScheduledMessagesApi)
  .add(ReactionsApi)
  .add(PinsApi)
  .add(WebhooksApi)
  .add(WebhookTokensApi)
  .add(InboundWebhooksApi)
  .add(SelfDeletionApi)
  .add(GatewayApi)
  .add(GifaApi)
  .add(GifbApi)
  .add(ApplicationsApi)
  .add(PublicApplicationsApi)
  .add(OAuth2ConsentApi)
  .add(OAuth2TokensApi)
  .add(ReportsApi)
  .add(DsaReportsApi)
  .add(AdminApi)
  .add(AdminBansApi)
  .add(AdminUserLookupApi)
  .add(AdminUserProfileApi)
  .add(AdminUserSecurityApi)
  .add(AdminMessagesApi)
  .add(AdminDiscoveryApi)
  .add(AdminAssetsApi)
  .add(AdminGuildsApi)
  .add(AdminReportsApi)
  .add(AdminSystemDmsApi)
  .add(AdminSearchApi)
  .add(AdminVoiceApi)
  .add(AdminArchivesApi)
  .add(AdminLimitsApi)
  .add(WellKnownApi)
  .add(StreamsApi)
  .annotateMerge(OpenApi.annotations({ title: "Guildhall API", version: "1" }))
{}
