import type { Mail } from "../mail/Mailer.ts"

export const dsaCodeMail = (to: string, code: string): Mail => ({
  to,
  subject: "Your report verification code",
  text: [
    "Someone asked to file a report under the Digital Services Act with this email address.",
    "",
    `Your verification code: ${code}`,
    "",
    "The code works for 10 minutes. If you did not ask for it, ignore this email."
  ].join("\n")
})

/** The reporter hears how their report ended: the staff's public comment. */
export const reportResolvedMail = (to: string, username: string, reportId: string, comment: string): Mail => ({
  to,
  subject: "Your report was resolved",
  text: [
    `Hello ${username},`,
    "",
    `Our team reviewed your report ${reportId} and resolved it.`,
    "",
    comment,
    "",
    "Thank you for helping keep the community safe."
  ].join("\n")
})
