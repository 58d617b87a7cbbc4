// Test wallets for Sign-In with Ethereum and Solana, computed live with no
// dependency: Keccak-256 and secp256k1 ECDSA (with the recovery id wallets
// add) on BigInt, ed25519 from node:crypto, base58 for Solana addresses.
// Test-only code: not constant time, never for real keys.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto'

// ---- Keccak-256 (Ethereum's: the original padding 0x01, not SHA3's 0x06)
const MASK = (1n << 64n) - 1n
const RC = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n, 0x000000000000808bn,
  0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n, 0x000000000000008an, 0x0000000000000088n,
  0x0000000080008009n, 0x000000008000000an, 0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n,
  0x8000000000008003n, 0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n,
]
// ROTATION[x][y]
const ROTATION = [
  [0, 36, 3, 41, 18],
  [1, 44, 10, 45, 2],
  [62, 6, 43, 15, 61],
  [28, 55, 25, 21, 56],
  [27, 20, 39, 8, 14],
]
const rotl = (v: bigint, n: number) => (n === 0 ? v : ((v << BigInt(n)) | (v >> BigInt(64 - n))) & MASK)

function permute(a: bigint[]) {
  for (let round = 0; round < 24; round++) {
    const c = [0, 1, 2, 3, 4].map((x) => a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20])
    const d = [0, 1, 2, 3, 4].map((x) => c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1))
    for (let i = 0; i < 25; i++) a[i] ^= d[i % 5]
    const b = new Array<bigint>(25).fill(0n)
    for (let x = 0; x < 5; x++)
      for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], ROTATION[x][y])
    for (let x = 0; x < 5; x++)
      for (let y = 0; y < 5; y++)
        a[x + 5 * y] = b[x + 5 * y] ^ (~b[((x + 1) % 5) + 5 * y] & MASK & b[((x + 2) % 5) + 5 * y])
    a[0] ^= RC[round]
  }
}

export function keccak256(data: Uint8Array): Uint8Array {
  const rate = 136
  const padded = new Uint8Array(Math.ceil((data.length + 1) / rate) * rate)
  padded.set(data)
  padded[data.length] ^= 0x01
  padded[padded.length - 1] ^= 0x80
  const state = new Array<bigint>(25).fill(0n)
  for (let offset = 0; offset < padded.length; offset += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n
      for (let j = 7; j >= 0; j--) lane = (lane << 8n) | BigInt(padded[offset + i * 8 + j])
      state[i] ^= lane
    }
    permute(state)
  }
  const out = new Uint8Array(32)
  for (let i = 0; i < 4; i++) for (let j = 0; j < 8; j++) out[i * 8 + j] = Number((state[i] >> BigInt(8 * j)) & 0xffn)
  return out
}

// ---- secp256k1
const P = 2n ** 256n - 2n ** 32n - 977n
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const G: Point = [
  0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n,
  0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n,
]
type Point = [bigint, bigint] | null
const mod = (a: bigint, m: bigint) => ((a % m) + m) % m
function pow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n
  base = mod(base, m)
  while (exp > 0n) {
    if (exp & 1n) result = (result * base) % m
    base = (base * base) % m
    exp >>= 1n
  }
  return result
}
const inv = (a: bigint, m: bigint) => pow(a, m - 2n, m)
function add(p: Point, q: Point): Point {
  if (!p) return q
  if (!q) return p
  if (p[0] === q[0] && mod(p[1] + q[1], P) === 0n) return null
  const l =
    p[0] === q[0] && p[1] === q[1]
      ? mod(3n * p[0] * p[0] * inv(2n * p[1], P), P)
      : mod((q[1] - p[1]) * inv(q[0] - p[0], P), P)
  const x = mod(l * l - p[0] - q[0], P)
  return [x, mod(l * (p[0] - x) - p[1], P)]
}
function multiply(k: bigint, point: Point): Point {
  let result: Point = null
  let addend = point
  while (k > 0n) {
    if (k & 1n) result = add(result, addend)
    addend = add(addend, addend)
    k >>= 1n
  }
  return result
}
const toBig = (bytes: Uint8Array) => BigInt('0x' + Buffer.from(bytes).toString('hex'))
const to32 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex')

export interface EthereumWallet {
  address: string
  /** personal_sign: the EIP-191 message signature, 0x + r ‖ s ‖ v. */
  signMessage(message: string): string
}

export function ethereumWallet(): EthereumWallet {
  const secret = mod(toBig(randomBytes(32)), N - 1n) + 1n
  const [x, y] = multiply(secret, G)!
  const address = '0x' + Buffer.from(keccak256(Buffer.concat([to32(x), to32(y)]))).subarray(12).toString('hex')
  return {
    address,
    signMessage(message: string) {
      const bytes = Buffer.from(message, 'utf8')
      const hash = keccak256(Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${bytes.length}`), bytes]))
      const z = toBig(hash)
      for (;;) {
        const k = mod(toBig(randomBytes(32)), N - 1n) + 1n
        const [rx, ry] = multiply(k, G)!
        const r = mod(rx, N)
        if (r === 0n || rx >= N) continue
        let s = mod(inv(k, N) * (z + r * secret), N)
        if (s === 0n) continue
        let recovery = Number(ry & 1n)
        if (s > N / 2n) {
          s = N - s
          recovery ^= 1
        }
        return '0x' + to32(r).toString('hex') + to32(s).toString('hex') + (27 + recovery).toString(16)
      }
    },
  }
}

// ---- Solana: ed25519 and base58
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
export function base58(bytes: Uint8Array): string {
  let n = toBig(bytes)
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out
    n /= 58n
  }
  for (const b of bytes) {
    if (b !== 0) break
    out = '1' + out
  }
  return out
}

export interface SolanaWallet {
  address: string
  signMessage(message: string): Uint8Array
}

export function solanaWallet(): SolanaWallet {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
  return {
    address: base58(raw),
    signMessage: (message: string) => new Uint8Array(sign(null, Buffer.from(message, 'utf8'), privateKey)),
  }
}
