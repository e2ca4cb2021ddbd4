import type { Mail } from "../mail/Mailer.ts"

/**
 * The texts of the account emails. Every link carries its token after `#`, so
 * it never reaches a server log; the page reads it and posts it to the API.
 */
const link = (publicUrl: string, page: string, token: string) => `${publicUrl}/${page}#token=${token}`

export const verifyEmailMail = (publicUrl: string, to: string, token: string): Mail => ({
  to,
  subject: "Verify your email address",
  text: [
    "Welcome to Guildhall!",
    "",
    "Confirm that this is your email address by opening this link:",
    link(publicUrl, "verify", token),
    "",
    "The link works for 24 hours. If you did not create an account, ignore this email."
  ].join("\n")
})

export const passwordResetMail = (publicUrl: string, to: string, token: string): Mail => ({
  to,
  subject: "Reset your password",
  text: [
    "Someone asked to reset the password of your Guildhall account.",
    "",
    "To choose a new password, open this link:",
    link(publicUrl, "reset", token),
    "",
    "The link works for 1 hour, once. Resetting the password signs out every device.",
    "If you did not ask for this, ignore this email: your password stays as it is."
  ].join("\n")
})

export const emailRevertMail = (publicUrl: string, to: string, token: string): Mail => ({
  to,
  subject: "The email address of your account was changed",
  text: [
    `The email address of your Guildhall account was changed from ${to} to another address.`,
    "",
    "If you did not do this, your account may be in someone else's hands. Open this link to",
    "put this address back, choose a new password and sign out every device:",
    link(publicUrl, "email-revert", token),
    "",
    "The link works for 7 days, once. If you made the change yourself, ignore this email."
  ].join("\n")
})

export const ipAuthorizationMail = (publicUrl: string, to: string, token: string, ip: string): Mail => ({
  to,
  subject: "Confirm a login from a new location",
  text: [
    `Someone with your password tried to log in to your Guildhall account from a new IP address: ${ip}.`,
    "",
    "If this was you, open this link to allow that address:",
    link(publicUrl, "authorize-ip", token),
    "",
    "The link works for 15 minutes, once. If this was not you, change your password now:",
    "whoever tried knows it."
  ].join("\n")
})

// An operator's actions on the account, told to its owner (the production service mails each of them).

export const suspendedMail = (to: string, reason: string | null, until: Date | null): Mail => ({
  to,
  subject: until === null ? "Your account has been suspended" : "Your account has been temporarily suspended",
  text: [
    until === null
      ? "Your Guildhall account has been suspended by the instance's operators."
      : `Your Guildhall account has been suspended by the instance's operators until ${until.toISOString()}.`,
    ...(reason === null ? [] : ["", `Reason: ${reason}`]),
    "",
    "You have been signed out of every device and cannot sign in meanwhile."
  ].join("\n")
})

export const unsuspendedMail = (to: string): Mail => ({
  to,
  subject: "Your account is no longer suspended",
  text: ["The suspension of your Guildhall account has been lifted: you can sign in again."].join("\n")
})

export const suspiciousActivityMail = (to: string): Mail => ({
  to,
  subject: "Your account has been disabled for suspicious activity",
  text: [
    "Your Guildhall account has been disabled because of suspicious activity, and signed out of every device.",
    "",
    "When you next sign in you will be asked to verify your identity before the account works again."
  ].join("\n")
})

export const deletionScheduledMail = (to: string, reason: string | null, at: Date): Mail => ({
  to,
  subject: "Your account is scheduled for deletion",
  text: [
    `The instance's operators have scheduled your Guildhall account for deletion on ${at.toISOString()}.`,
    ...(reason === null ? [] : ["", `Reason: ${reason}`]),
    "",
    "You have been signed out of every device and cannot sign in meanwhile."
  ].join("\n")
})
