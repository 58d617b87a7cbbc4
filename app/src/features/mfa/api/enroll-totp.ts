// Starts a TOTP enrolment (auth.mfa.enroll): the factor stays unverified
// until a code from the app confirms it. Enrolments left unfinished hold
// their friendly names, so they are removed first (an unverified factor may
// be removed at aal1).
import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface TotpEnrolment {
  factorId: string
  /** An image URL (the server's SVG as a data: URL). */
  qrCode: string
  secret: string
  uri: string
}

const SVG_PREFIX = 'data:image/svg+xml;utf-8,'

/**
 * The QR code as an image URL. supabase-js prefixes the server's raw SVG with
 * `data:image/svg+xml;utf-8,`; a `#` in it (a colour such as `#000`) would
 * start the URL's fragment and cut the image short, so the SVG is escaped.
 */
export function qrImageUrl(qrCode: string): string {
  if (!qrCode.startsWith(SVG_PREFIX)) return qrCode
  return SVG_PREFIX + encodeURIComponent(qrCode.slice(SVG_PREFIX.length))
}

export async function enrollTotp(friendlyName: string): Promise<TotpEnrolment> {
  const mfa = getSupabase().auth.mfa
  const listed = await mfa.listFactors()
  if (listed.error) throw listed.error
  for (const factor of listed.data.all) {
    if (factor.factor_type !== 'totp' || factor.status === 'verified') continue
    const { error } = await mfa.unenroll({ factorId: factor.id })
    if (error) throw error
  }
  const { data, error } = await mfa.enroll({ factorType: 'totp', friendlyName })
  if (error) throw error
  return { factorId: data.id, qrCode: qrImageUrl(data.totp.qr_code), secret: data.totp.secret, uri: data.totp.uri }
}

export function useEnrollTotp() {
  return useMutation({ mutationFn: enrollTotp })
}
