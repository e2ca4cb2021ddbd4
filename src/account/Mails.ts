import type { Mail } from "../mail/Mailer.ts"

/** The texts of the email and password change mails. Codes are typed into the app, so no link is needed. */

const minutes = (ms: number) => Math.round(ms / 60_000)

export const emailChangeOriginalMail = (to: string, code: string, ttlMs: number): Mail => ({
  to,
  subject: "Confirm your email change",
  text: [
    "Someone signed in to your Guildhall account asked to change its email address.",
    "",
    `If it was you, enter this code in the app: ${code}`,
    "",
    `The code works for ${minutes(ttlMs)} minutes. If it was not you, change your password:`,
    "whoever asked knows it. Your email address stays as it is."
  ].join("\n")
})

export const emailChangeNewMail = (to: string, code: string, ttlMs: number): Mail => ({
  to,
  subject: "Confirm your new email address",
  text: [
    "This address was given as the new email address of a Guildhall account.",
    "",
    `To confirm that it is yours, enter this code in the app: ${code}`,
    "",
    `The code works for ${minutes(ttlMs)} minutes. If you did not ask for this, ignore this email.`
  ].join("\n")
})

export const passwordChangeMail = (to: string, code: string, ttlMs: number): Mail => ({
  to,
  subject: "Confirm your password change",
  text: [
    "Someone signed in to your Guildhall account asked to change its password.",
    "",
    `If it was you, enter this code in the app: ${code}`,
    "",
    `The code works for ${minutes(ttlMs)} minutes. If it was not you, someone else is signed in to`,
    "your account: end their session in the settings (Devices) and change your password."
  ].join("\n")
})

export const passwordChangedMail = (to: string): Mail => ({
  to,
  subject: "Your password was changed",
  text: [
    "The password of your Guildhall account was just changed, and every other device was signed out.",
    "",
    "If you did not do this, reset your password with \"Forgot your password?\" on the login page."
  ].join("\n")
})
