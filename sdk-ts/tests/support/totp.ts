// The tests' own authenticator app: RFC 6238 (SHA-1, 30 s, 6 digits) with
// node:crypto, independent of the server's implementation.
import { createHmac } from 'node:crypto'

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const c of text.replace(/=+$/, '')) {
    const value = alphabet.indexOf(c.toUpperCase())
    if (value < 0) throw new Error(`not base32: ${text}`)
    bits += value.toString(2).padStart(5, '0')
  }
  const bytes: number[] = []
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2))
  return Buffer.from(bytes)
}

/** The RFC 6238 code (SHA-1, 30 s, 6 digits) of `secret` at `unixSeconds`. */
export function totp(secret: string, unixSeconds = Date.now() / 1000): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / 30)))
  const hash = createHmac('sha1', base32Decode(secret)).update(counter).digest()
  const offset = hash[hash.length - 1] & 0xf
  const value = hash.readUInt32BE(offset) & 0x7fffffff
  return String(value % 1_000_000).padStart(6, '0')
}
