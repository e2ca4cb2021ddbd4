import { createHmac, timingSafeEqual } from "node:crypto"

/** The path a download URL points at (FileApi.ts). */
export const filePath = (archiveId: string) => `/archives/${archiveId}/file`

const signatureOf = (key: Buffer, archiveId: string, expires: number) =>
  createHmac("sha256", key).update(`${archiveId}.${expires}`).digest("base64url")

/**
 * A download URL of the archive valid until `expires` (Unix seconds): an
 * HMAC-SHA256 of the id and expiry under the archive's own key (kept in its
 * row), so any API process can check it and nobody can make one without it.
 */
export const signedUrl = (publicUrl: string, archiveId: string, key: Buffer, expires: number) =>
  `${publicUrl}${filePath(archiveId)}?expires=${expires}&signature=${signatureOf(key, archiveId, expires)}`

export const validSignature = (key: Buffer, archiveId: string, expires: number, signature: string) => {
  const expected = Buffer.from(signatureOf(key, archiveId, expires))
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}
