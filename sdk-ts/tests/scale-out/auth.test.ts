// Sessions across nodes: sessions, refresh tokens and e-mail tokens live in
// PostgreSQL, and both nodes sign with the same JWT_SECRET, so whatever one
// node issues the other accepts.
import { afterAll, describe, expect, it } from 'vitest'
import { PASSWORD, closeClients, confirmedUser, nodeA, nodeB, serviceRoleKey, siteUrl, uniqueEmail, userClient } from './nodes'

afterAll(closeClients)

/** The newest dev-mailbox message's links to `to`, read on `node` with the service key. */
async function mailboxLinks(node: string, to: string): Promise<string[]> {
  const response = await fetch(`${node}/_/mailbox/api/messages?to=${encodeURIComponent(to)}`, {
    headers: { apikey: serviceRoleKey },
  })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { messages: { links: string[] }[] }
  expect(body.messages.length).toBeGreaterThan(0)
  return body.messages[0].links
}

/** `link` with its origin replaced by `node`'s. */
function onNode(link: string, node: string): string {
  const url = new URL(link)
  const base = new URL(node)
  url.protocol = base.protocol
  url.host = base.host
  return url.toString()
}

describe('auth across nodes', () => {
  it('signs up on A, confirms the e-mail through B, signs in on B', async () => {
    const email = uniqueEmail('signup')
    const onA = userClient(nodeA)
    const onB = userClient(nodeB)

    const signUp = await onA.auth.signUp({ email, password: PASSWORD })
    expect(signUp.error).toBeNull()
    // E-mail confirmation is on by default (ENABLE_EMAIL_AUTOCONFIRM=false).
    expect(signUp.data.session).toBeNull()
    const userId = signUp.data.user!.id

    const early = await onB.auth.signInWithPassword({ email, password: PASSWORD })
    expect(early.error?.code).toBe('email_not_confirmed')

    // The mail node A sent is in the database's mailbox, which B reads.
    const link = (await mailboxLinks(nodeB, email)).find((l) => l.includes('/auth/v1/verify'))
    expect(link).toBeDefined()
    const verified = await fetch(onNode(link!, nodeB), { redirect: 'manual' })
    expect(verified.status).toBeGreaterThanOrEqual(300)
    expect(verified.status).toBeLessThan(400)
    const landing = verified.headers.get('location') ?? ''
    expect(landing.startsWith(siteUrl)).toBe(true)
    expect(landing).toContain('access_token=')
    expect(landing).not.toContain('error')

    const signIn = await onB.auth.signInWithPassword({ email, password: PASSWORD })
    expect(signIn.error).toBeNull()
    expect(signIn.data.user?.id).toBe(userId)
  })

  it("refreshes A's session on B; A accepts the new token; signing out on B ends it on A", async () => {
    const user = await confirmedUser(nodeA, 'refresh')
    const onA = userClient(nodeA)
    const onB = userClient(nodeB)

    const signIn = await onA.auth.signInWithPassword({ email: user.email, password: PASSWORD })
    expect(signIn.error).toBeNull()
    const first = signIn.data.session!

    const refreshed = await onB.auth.refreshSession({ refresh_token: first.refresh_token })
    expect(refreshed.error).toBeNull()
    const second = refreshed.data.session!
    expect(second.user.id).toBe(user.id)
    expect(second.refresh_token).not.toBe(first.refresh_token)
    expect(second.access_token).not.toBe(first.access_token)

    // A knows the user behind B's new access token, and answers REST with it.
    const checked = await onA.auth.getUser(second.access_token)
    expect(checked.error).toBeNull()
    expect(checked.data.user?.id).toBe(user.id)
    const asUser = userClient(nodeA)
    await asUser.auth.setSession({ access_token: second.access_token, refresh_token: second.refresh_token })
    const profile = await asUser.from('profiles').select('id').eq('id', user.id)
    expect(profile.error).toBeNull()
    expect(profile.data).toEqual([{ id: user.id }])

    // B ends every session of the user; A no longer refreshes it.
    const signOut = await onB.auth.signOut({ scope: 'global' })
    expect(signOut.error).toBeNull()
    const afterSignOut = await userClient(nodeA).auth.refreshSession({ refresh_token: second.refresh_token })
    expect(afterSignOut.error).not.toBeNull()
    expect(afterSignOut.data.session).toBeNull()
  })
})
