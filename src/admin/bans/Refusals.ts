import { Forbidden } from "../../model/Errors.ts"

/*
 * The production service has no code of its own for a banned email or phone
 * number (its list of codes has IP_BANNED only), so these answer 403 with the
 * generic ACCESS_DENIED and say why in the message.
 */
export const emailBanned = () =>
  new Forbidden({ code: "ACCESS_DENIED", message: "This email address cannot be used on this instance" })

export const phoneBanned = () =>
  new Forbidden({ code: "ACCESS_DENIED", message: "This phone number cannot be used on this instance" })
