import { useState } from "preact/hooks"
import { AdminClient, callJson, type Failure, LoginAnswer } from "./api.ts"
import { ignored } from "./decode.ts"
import { Me } from "./schemas.ts"

/** A signed-in operator: the client holding their credential, who they are, and how they signed in. */
export interface Operator {
  readonly client: AdminClient
  readonly me: Me
  /** Set for an account's sign-in: the session token, ended at sign-out. */
  readonly sessionToken: string | undefined
}

const explain = (failure: Failure, what: string): string => {
  if (failure.status === 401) return `${what} was refused (${failure.code}).`
  if (failure.status === 403) return `This credential may not use the admin API (${failure.code}: ${failure.message}).`
  return `${failure.message} (${failure.code}).`
}

/** Whether the credential opens the admin API: who it is, or why not. */
const verify = async (authorization: string, sessionToken: string | undefined, what: string): Promise<Operator | string> => {
  const client = new AdminClient(authorization)
  const me = await client.get("/admin/users/me", Me)
  return me.ok ? { client, me: me.value, sessionToken } : explain(me.failure, what)
}

/** Ends an account's session that turned out not to be an operator's. */
export const endSession = (token: string) => callJson("POST", "/auth/logout", ignored, { authorization: token })

type Mode = "key" | "account"

export const SignIn = (props: { readonly onSignedIn: (operator: Operator) => void }) => {
  const [mode, setMode] = useState<Mode>("key")
  const [key, setKey] = useState("")
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [code, setCode] = useState("")
  const [ticket, setTicket] = useState<string | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)

  const withToken = async (token: string) => {
    const verified = await verify(token, token, "The account")
    if (typeof verified === "string") void endSession(token)
    return verified
  }

  /** The operator, a sentence saying why not, or "code" when the account's authenticator code is asked next. */
  const attempt = async (): Promise<Operator | string | "code"> => {
    if (mode === "key") {
      const secret = key.trim()
      if (secret === "") return "Enter an admin API key."
      return verify(`Admin ${secret}`, undefined, "The API key")
    }
    if (ticket !== undefined) {
      const answer = await callJson("POST", "/auth/login/mfa/totp", LoginAnswer, { body: { code: code.trim(), ticket } })
      if (!answer.ok) return explain(answer.failure, "The code")
      return answer.value.token === undefined ? "The sign-in did not give a session." : withToken(answer.value.token)
    }
    const answer = await callJson("POST", "/auth/login", LoginAnswer, { body: { email: email.trim(), password } })
    if (!answer.ok) return explain(answer.failure, "The email or password")
    if (answer.value.token !== undefined) return withToken(answer.value.token)
    if (answer.value.ticket !== undefined) {
      setTicket(answer.value.ticket)
      return "code"
    }
    return "The sign-in did not give a session."
  }

  const submit = async (event: Event) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    const outcome = await attempt()
    setBusy(false)
    if (outcome === "code") return
    if (typeof outcome === "string") setError(outcome)
    else {
      setKey("")
      setPassword("")
      props.onSignedIn(outcome)
    }
  }

  const switchTo = (next: Mode) => {
    setMode(next)
    setError(undefined)
    setTicket(undefined)
  }

  return (
    <main class="signin">
      <form class="signin-card" id="signin" onSubmit={submit}>
        <div class="brand brand-large"><span class="brand-mark" aria-hidden="true">G</span> Guildhall</div>
        <h1>Operators' console</h1>
        <div class="segmented" role="tablist">
          <button type="button" role="tab" aria-selected={mode === "key"} class={mode === "key" ? "active" : ""} onClick={() => switchTo("key")}>
            Admin API key
          </button>
          <button type="button" role="tab" aria-selected={mode === "account"} class={mode === "account" ? "active" : ""} onClick={() => switchTo("account")}>
            Operator account
          </button>
        </div>
        {mode === "key"
          ? (
            <label class="field">
              <span>API key</span>
              <input name="key" type="password" autocomplete="off" spellcheck={false} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
            </label>
          )
          : (
            <>
              <label class="field">
                <span>Email</span>
                <input name="email" type="email" autocomplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
              </label>
              <label class="field">
                <span>Password</span>
                <input name="password" type="password" autocomplete="current-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
              </label>
              {ticket !== undefined && (
                <label class="field">
                  <span>Authenticator code</span>
                  <span class="hint-left">This account has two-factor authentication: enter the code its authenticator app shows.</span>
                  <input name="code" inputMode="numeric" autocomplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} />
                </label>
              )}
            </>
          )}
        {error !== undefined && <p class="alert" role="alert">{error}</p>}
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? "Signing in…" : ticket === undefined ? "Sign in" : "Verify code"}
        </button>
        <p class="hint">The credential stays in this page's memory only: reloading or closing the page signs out.</p>
      </form>
    </main>
  )
}
