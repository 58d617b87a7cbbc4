import { describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderWithClient } from '@/testing/render'
import { mockFetch } from '@/testing/fetch'
import { SignInForm } from './sign-in-form'

async function submit(email: string, password: string) {
  const user = userEvent.setup()
  await user.type(screen.getByLabelText('Email'), email)
  await user.type(screen.getByLabelText('Password'), password)
  await user.click(screen.getByRole('button', { name: 'Sign in' }))
}

describe('SignInForm', () => {
  it('signs in with e-mail and password and says so', async () => {
    const fetch = mockFetch({ status: 200, body: { operator: { id: 'o1', email: 'ops@example.test' }, expires_at: '2030-01-01T00:00:00Z' } })
    const signedIn = vi.fn()
    renderWithClient(<SignInForm onSignedIn={signedIn} />)
    await submit(' ops@example.test ', 'secret-password')
    await vi.waitFor(() => expect(signedIn).toHaveBeenCalled())
    const [url, init] = fetch.mock.calls[0]
    expect(url).toBe('/_/console/api/session')
    expect(init?.method).toBe('POST')
    expect((init?.headers as Record<string, string>)['x-plinth-console']).toBe('1')
    expect(JSON.parse(String(init?.body))).toEqual({ email: 'ops@example.test', password: 'secret-password' })
  })

  it('shows a refused password', async () => {
    mockFetch({ status: 401, body: { error: 'invalid_credentials', message: 'invalid credentials' } })
    const signedIn = vi.fn()
    renderWithClient(<SignInForm onSignedIn={signedIn} />)
    await submit('ops@example.test', 'wrong')
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong e-mail or password.')
    expect(signedIn).not.toHaveBeenCalled()
  })

  it('shows too many attempts', async () => {
    mockFetch({ status: 429, body: { error: 'too_many_attempts', message: 'slow down' } })
    renderWithClient(<SignInForm onSignedIn={() => {}} />)
    await submit('ops@example.test', 'wrong')
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many failed attempts')
  })

  it('cannot be sent empty', () => {
    renderWithClient(<SignInForm onSignedIn={() => {}} />)
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeDisabled()
  })
})
