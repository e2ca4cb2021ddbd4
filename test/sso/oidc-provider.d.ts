// The few parts of oidc-provider (v9, no bundled types) that the SSO tests use.
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  export interface AccountClaims {
    readonly sub: string
    readonly [claim: string]: unknown
  }
  export interface Account {
    readonly accountId: string
    readonly claims: (use: string, scope: string) => Promise<AccountClaims>
  }
  export interface Interaction {
    readonly uid: string
    readonly params: Readonly<Record<string, unknown>>
  }
  export interface Configuration {
    readonly clients?: ReadonlyArray<Readonly<Record<string, unknown>>>
    readonly jwks?: { readonly keys: ReadonlyArray<Readonly<Record<string, unknown>>> }
    readonly cookies?: { readonly keys: ReadonlyArray<string> }
    readonly claims?: Readonly<Record<string, ReadonlyArray<string>>>
    readonly pkce?: { readonly required: () => boolean }
    readonly features?: Readonly<Record<string, { readonly enabled: boolean }>>
    readonly interactions?: { readonly url: (ctx: unknown, interaction: Interaction) => string }
    readonly findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>
  }
  export class Grant {
    constructor(init: { readonly accountId: string; readonly clientId: string })
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }
  export class Provider {
    constructor(issuer: string, configuration: Configuration)
    readonly Grant: typeof Grant
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Readonly<Record<string, unknown>>,
      options?: { readonly mergeWithLastSubmission?: boolean }
    ): Promise<void>
  }
}
