import { StrictMode, type ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { act, renderHook, screen, waitFor, within } from '@testing-library/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA, template } from '@/testing/fixtures'
import { FakeSupabase, type Row } from '@/testing/fake-supabase'
import { setFake } from '@/testing/supabase-module'
import { useSessionStore } from '@/lib/session'
import { readReviewNotice, useReviewNotifications } from './review-notifications'

const PENDING: Row[] = [
  { id: 'p-1', creator_id: 'u-maya', title: 'Habit Tracker', status: 'Pending Approval', created_at: '2024-06-01T00:00:00Z' },
  { id: 'p-2', creator_id: 'u-maya', title: 'Reading List', status: 'Pending Approval', created_at: '2024-06-02T00:00:00Z' },
]

function backend() {
  return {
    tables: marketplace({ templates_draft: [], templates_pending_approval: PENDING, templates_rejected: [] }),
    rpc: { get_template_wishlist_counts: () => ({ data: [] }) },
    signedInAs: MAYA,
  }
}

/** The toast that shows `title`, once sonner has rendered it. */
async function toastOf(title: string): Promise<HTMLElement> {
  const heading = await screen.findByText(title)
  return heading.closest('[data-sonner-toast]') as HTMLElement
}

describe("a creator's review notifications", () => {
  it('follows only the signed-in creator’s own private channel', async () => {
    const { fake } = renderApp('/dashboard', backend())
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))
    const channel = fake.privateChannels[0]
    expect(channel.name).toBe('creator:u-maya')
    expect(channel.isPrivate).toBe(true)
    expect(channel.broadcasts.map((b) => b.event)).toEqual(['template_reviewed'])
    // It is no table subscription.
    expect(fake.liveChannels).toHaveLength(0)
  })

  // Issue 44: a session read from the URL (the e-mail confirmation link) is
  // stored before supabase-js announces it, and only the announcement hands
  // its token to realtime; a join in between went as anon and was refused.
  it('joins with the session’s token even before the session is announced', async () => {
    const { fake } = renderApp('/dashboard', backend())
    expect(fake.realtimeToken).toBeNull()
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))
    expect(fake.privateChannels[0].joinedWith).toBe('token-u-maya')
    expect(fake.realtime.setAuth).toHaveBeenCalled()
  })

  it('shows an approval as a success naming the template, and re-reads the dashboard', async () => {
    const { fake } = renderApp('/dashboard', backend())
    const overview = await screen.findByRole('region', { name: 'Template Status Overview' })
    expect(await within(overview).findByTestId('status-pending')).toHaveTextContent('2')
    expect(within(overview).getByTestId('status-published')).toHaveTextContent('2')
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))

    // The admin approves p-1: it is published, and the database announces it.
    fake.tables.templates_pending_approval = fake.tables.templates_pending_approval.filter((r) => r.id !== 'p-1')
    fake.tables.templates.push(template({ id: 'p-1', title: 'Habit Tracker', user_id: 'u-maya' }))
    act(() => {
      expect(
        fake.emitBroadcast('creator:u-maya', 'template_reviewed', {
          template_id: 'p-1',
          title: 'Habit Tracker',
          status: 'approved',
          rejection_reason: null,
        }),
      ).toBe(1)
    })

    const toast = await toastOf('Template approved')
    expect(toast).toHaveAttribute('data-type', 'success')
    expect(within(toast).getByText('"Habit Tracker" has been approved and is now published.')).toBeInTheDocument()
    await waitFor(() => expect(within(overview).getByTestId('status-pending')).toHaveTextContent('1'))
    expect(within(overview).getByTestId('status-published')).toHaveTextContent('3')
  })

  it('shows a rejection naming the template and the reason', async () => {
    const { fake } = renderApp('/dashboard', backend())
    const overview = await screen.findByRole('region', { name: 'Template Status Overview' })
    expect(await within(overview).findByTestId('status-rejected')).toHaveTextContent('0')
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))

    fake.tables.templates_pending_approval = fake.tables.templates_pending_approval.filter((r) => r.id !== 'p-2')
    fake.tables.templates_rejected.push({ id: 'p-2', creator_id: 'u-maya', title: 'Reading List', rejection_comment: 'Add screenshots' })
    act(() => {
      fake.emitBroadcast('creator:u-maya', 'template_reviewed', {
        template_id: 'p-2',
        title: 'Reading List',
        status: 'rejected',
        rejection_reason: 'Add screenshots',
      })
    })

    const toast = await toastOf('Template rejected')
    expect(toast).toHaveAttribute('data-type', 'warning')
    expect(within(toast).getByText('"Reading List" was rejected: Add screenshots')).toBeInTheDocument()
    await waitFor(() => expect(within(overview).getByTestId('status-rejected')).toHaveTextContent('1'))
  })

  it('ignores other events and payloads that are no review', async () => {
    const { fake } = renderApp('/dashboard', backend())
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))
    act(() => {
      expect(fake.emitBroadcast('creator:u-maya', 'something_else', { status: 'approved', title: 'X' })).toBe(0)
      expect(fake.emitBroadcast('creator:u-leo', 'template_reviewed', { status: 'approved', title: 'X' })).toBe(0)
      expect(fake.emitBroadcast('creator:u-maya', 'template_reviewed', { status: 'published', title: 'X' })).toBe(1)
    })
    // Give a toast the chance to render, then check there is none.
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)))
    expect(document.querySelector('[data-sonner-toast]')).toBeNull()
  })

  it('leaves the channel on sign-out, and follows nothing for a visitor', async () => {
    const { fake } = renderApp('/', backend())
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))
    const channel = fake.privateChannels[0]
    await act(() => fake.auth.signOut())
    await waitFor(() => expect(fake.removeChannel).toHaveBeenCalledWith(channel))
    expect(fake.privateChannels).toHaveLength(0)
    expect(fake.channels).toHaveLength(0)
    // Nothing reaches the signed-out page.
    expect(fake.emitBroadcast('creator:u-maya', 'template_reviewed', { status: 'approved', title: 'Late' })).toBe(0)
  })

  it('leaves the channel when the app unmounts', async () => {
    const { fake, unmount } = renderApp('/', backend())
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))
    const channel = fake.privateChannels[0]
    unmount()
    await waitFor(() => expect(fake.removeChannel).toHaveBeenCalledWith(channel))
    expect(fake.channels).toHaveLength(0)
  })

  it('subscribes once at a time under StrictMode’s double effect', async () => {
    const fake = setFake(new FakeSupabase({ signedInAs: MAYA }))
    useSessionStore.setState({ user: fake.session!.user as never, session: fake.session as never, loading: false, mfaPending: false })
    const queryClient = new QueryClient()
    const wrapper = ({ children }: { children: ReactNode }) => (
      <StrictMode>
        <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
      </StrictMode>
    )
    const { unmount } = renderHook(() => useReviewNotifications(), { wrapper })
    await waitFor(() => expect(fake.privateChannels).toHaveLength(1))
    // The first run's channel (if it was made at all) was removed before the second was made.
    expect(fake.channels).toHaveLength(1)
    unmount()
    await waitFor(() => expect(fake.channels).toHaveLength(0))
    useSessionStore.setState({ user: null, session: null, loading: true, mfaPending: false })
  })
})

describe('readReviewNotice', () => {
  it('reads approvals and rejections, and nothing else', () => {
    expect(readReviewNotice({ template_id: 't-1', title: ' Planner ', status: 'approved', rejection_reason: 'ignored' })).toEqual({
      status: 'approved',
      templateId: 't-1',
      title: 'Planner',
      reason: null,
    })
    expect(readReviewNotice({ template_id: 't-2', title: '', status: 'rejected', rejection_reason: 'Too short' })).toEqual({
      status: 'rejected',
      templateId: 't-2',
      title: 'Your template',
      reason: 'Too short',
    })
    expect(readReviewNotice({ status: 'Active', title: 'X' })).toBeNull()
    expect(readReviewNotice({})).toBeNull()
  })
})
