import { describe, expect, it, vi } from 'vitest'
import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { QueryClient, QueryClientProvider, QueryObserver } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { SLOW_LOADING_NOTICE_MS } from '@/config/constants'
import { LoadError, Spinner, STILL_LOADING_TEXT, StillLoading } from './feedback'

function withClient(children: ReactNode, client = new QueryClient({ defaultOptions: { queries: { retry: false } } })) {
  return render(<QueryClientProvider client={client}>{children}</QueryClientProvider>)
}

describe('LoadError', () => {
  it('says in plain words what happened and what to do, as an alert', () => {
    withClient(<LoadError />)
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent("We couldn't load this page")
    expect(alert).toHaveTextContent('Check your connection and try again.')
    expect(screen.getByRole('button', { name: 'Try again' })).toBeEnabled()
  })

  it('runs the given retry, reading "Trying again..." (and keeping focus) until it settles', async () => {
    const user = userEvent.setup()
    let settle!: () => void
    const onRetry = vi.fn(() => new Promise<void>((resolve) => (settle = resolve)))
    withClient(<LoadError title="We couldn't load your wishlist" onRetry={onRetry} />)
    expect(screen.getByRole('alert')).toHaveTextContent("We couldn't load your wishlist")
    await user.click(screen.getByRole('button', { name: 'Try again' }))
    const busy = screen.getByRole('button', { name: 'Trying again...' })
    expect(busy).toHaveAttribute('aria-busy', 'true')
    expect(busy).toHaveFocus()
    // A second press while busy does not start another retry.
    await user.click(busy)
    expect(onRetry).toHaveBeenCalledTimes(1)
    await act(async () => settle())
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument()
  })

  it('by default fetches again every query of the page that failed, and only those', async () => {
    const user = userEvent.setup()
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
    const failing = vi.fn(async () => {
      throw new Error('offline')
    })
    const fine = vi.fn(async () => 'ok')
    // Active queries: each has a subscribed observer, as a mounted screen's do.
    const subs = [
      new QueryObserver(client, { queryKey: ['a'], queryFn: failing }).subscribe(() => {}),
      new QueryObserver(client, { queryKey: ['b'], queryFn: fine }).subscribe(() => {}),
    ]
    await vi.waitFor(() => expect(client.getQueryState(['a'])?.status).toBe('error'))
    await vi.waitFor(() => expect(client.getQueryState(['b'])?.status).toBe('success'))
    expect(failing).toHaveBeenCalledTimes(1)
    expect(fine).toHaveBeenCalledTimes(1)
    withClient(<LoadError />, client)
    await user.click(screen.getByRole('button', { name: 'Try again' }))
    expect(failing).toHaveBeenCalledTimes(2)
    expect(fine).toHaveBeenCalledTimes(1)
    subs.forEach((unsubscribe) => unsubscribe())
  })
})

describe('slow loading', () => {
  it('a spinner says it is still working once the load takes long', () => {
    vi.useFakeTimers()
    render(<Spinner label="Loading template..." />)
    expect(screen.getByRole('status')).toHaveTextContent('Loading template...')
    expect(screen.queryByText(STILL_LOADING_TEXT)).not.toBeInTheDocument()
    act(() => vi.advanceTimersByTime(SLOW_LOADING_NOTICE_MS))
    expect(screen.getByRole('status')).toHaveTextContent(STILL_LOADING_TEXT)
  })

  it('beside skeletons, a polite live region that fills after the same time', () => {
    vi.useFakeTimers()
    const { container } = render(<StillLoading />)
    const region = container.querySelector('[aria-live="polite"]')!
    expect(region).toHaveTextContent('')
    act(() => vi.advanceTimersByTime(SLOW_LOADING_NOTICE_MS - 1))
    expect(region).toHaveTextContent('')
    act(() => vi.advanceTimersByTime(1))
    expect(region).toHaveTextContent(STILL_LOADING_TEXT)
  })
})
