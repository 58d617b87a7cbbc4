import { describe, expect, it } from 'vitest'
import { anonKey, plinthUrl, serviceRoleKey, sql } from './support/context'

function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())
}

describe('a running plinth', () => {
  it('answers /health', async () => {
    const response = await fetch(`${plinthUrl}/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'ok', database: 'ok' })
  })

  it('prints API keys with the platform roles', () => {
    expect(claims(anonKey).role).toBe('anon')
    expect(claims(serviceRoleKey).role).toBe('service_role')
  })

  it('applied the platform SQL to its database', async () => {
    const rows = await sql<{ rolname: string }>(
      "select rolname from pg_roles where rolname in ('anon','authenticated','service_role','authenticator') order by 1",
    )
    expect(rows.map((r) => r.rolname)).toEqual(['anon', 'authenticated', 'authenticator', 'service_role'])
  })
})
