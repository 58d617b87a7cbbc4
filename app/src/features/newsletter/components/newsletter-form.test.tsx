// The newsletter form with the server's webhook (PLINTH_NEWSLETTER_WEBHOOK_URL,
// read from /_/app-config.json): the webhook first with {email, Name}, the
// subscribe-to-newsletter function when it is not ok, and the failure toast
// when both fail. The webhook is a third party: its answers are made here.
import { describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace } from '@/testing/fixtures'
import { functionError } from '@/testing/fake-supabase'

const HOOK = 'https://hook.example.com/newsletter/abc'

/**
 * Answers the webhook with `status`, recording every request that leaves the
 * app's origin; requests to the origin go to the fake backend.
 */
function webhookAnswers(status: number) {
  const received: Array<{ url: string; method?: string; headers?: HeadersInit; body: unknown }> = []
  const backend = vi.mocked(fetch).getMockImplementation()!
  vi.mocked(fetch).mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url
    if (url.startsWith(`${window.location.origin}/`)) return backend(input, init)
    received.push({ url, method: init?.method, headers: init?.headers, body: JSON.parse(String(init?.body)) })
    return new Response(status === 200 ? 'Accepted' : 'error', { status })
  })
  return received
}

async function subscribe(name: string, email: string) {
  const user = userEvent.setup()
  await user.type(await screen.findByLabelText('Name'), name)
  await user.type(screen.getByLabelText('Email'), email)
  await user.click(screen.getByRole('button', { name: 'Subscribe' }))
}

describe('NewsletterForm with a webhook', () => {
  it('posts {email, Name} to the webhook and stops there when it is ok', async () => {
    const { fake } = renderApp('/', {
      tables: marketplace(),
      appConfig: { newsletterWebhookUrl: HOOK },
      functions: { 'subscribe-to-newsletter': () => ({ data: { ok: true } }) },
    })
    const received = webhookAnswers(200)
    await subscribe('Reader', 'reader@example.com')
    expect(await screen.findByText('Success!')).toBeInTheDocument()
    expect(received).toEqual([
      { url: HOOK, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: { email: 'reader@example.com', Name: 'Reader' } },
    ])
    expect(fake.callsTo('fn:subscribe-to-newsletter')).toHaveLength(0)
    expect(screen.getByLabelText('Name')).toHaveValue('')
    expect(screen.getByLabelText('Email')).toHaveValue('')
  })

  it('falls back to the function when the webhook is not ok', async () => {
    const { fake } = renderApp('/', {
      tables: marketplace(),
      appConfig: { newsletterWebhookUrl: HOOK },
      functions: { 'subscribe-to-newsletter': () => ({ data: { ok: true } }) },
    })
    const received = webhookAnswers(500)
    await subscribe('Reader', 'reader@example.com')
    expect(await screen.findByText('Success!')).toBeInTheDocument()
    expect(received).toHaveLength(1)
    expect(fake.callsTo('fn:subscribe-to-newsletter').map((c) => c.payload)).toEqual([{ email: 'reader@example.com', name: 'Reader' }])
  })

  it("says 'Failed to subscribe. Please try again later.' when both fail, keeping the fields", async () => {
    const { fake } = renderApp('/', {
      tables: marketplace(),
      appConfig: { newsletterWebhookUrl: HOOK },
      functions: { 'subscribe-to-newsletter': () => ({ error: functionError(500, 'Failed to subscribe') }) },
    })
    const received = webhookAnswers(500)
    await subscribe('Reader', 'reader@example.com')
    expect(await screen.findByText('Failed to subscribe. Please try again later.')).toBeInTheDocument()
    expect(received).toHaveLength(1)
    expect(fake.callsTo('fn:subscribe-to-newsletter')).toHaveLength(1)
    expect(screen.queryByText('Success!')).not.toBeInTheDocument()
    expect(screen.getByLabelText('Name')).toHaveValue('Reader')
    expect(screen.getByLabelText('Email')).toHaveValue('reader@example.com')
  })

  it.each([null, 'javascript:alert(1)'])('calls no webhook when the server gives %s', async (newsletterWebhookUrl) => {
    const { fake } = renderApp('/', {
      tables: marketplace(),
      appConfig: { newsletterWebhookUrl },
      functions: { 'subscribe-to-newsletter': () => ({ data: { ok: true } }) },
    })
    const received = webhookAnswers(200)
    await subscribe('Reader', 'reader@example.com')
    expect(await screen.findByText('Success!')).toBeInTheDocument()
    expect(fake.callsTo('app-config')).toHaveLength(1)
    expect(received).toHaveLength(0)
    expect(fake.callsTo('fn:subscribe-to-newsletter')).toHaveLength(1)
  })
})
