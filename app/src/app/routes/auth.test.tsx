import { describe, expect, it } from 'vitest'
import { act, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'
import { useNavMemory } from '@/lib/nav-memory'

describe('auth page', () => {
  it('requires every field and a valid e-mail on sign-in', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/auth', { tables: marketplace(), users: [MAYA] })
    await user.click(await screen.findByRole('button', { name: 'Sign In' }))
    expect(screen.getByText('Email is required')).toBeInTheDocument()
    expect(screen.getByText('Password is required')).toBeInTheDocument()
    await user.type(screen.getByLabelText('Email'), 'not-an-email')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true')
    expect(fake.auth.signInWithPassword).not.toHaveBeenCalled()
  })

  it('asks for a display name on sign-up (mode=sign-up)', async () => {
    const user = userEvent.setup()
    renderApp('/auth?mode=sign-up', { tables: marketplace() })
    expect(await screen.findByRole('tab', { name: 'Sign Up' })).toHaveAttribute('aria-selected', 'true')
    await user.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(screen.getByText('Display name is required')).toBeInTheDocument()
    expect(screen.getByText('Email is required')).toBeInTheDocument()
    expect(screen.getByText('Password is required')).toBeInTheDocument()
  })

  it('signs in, greets, and goes to the redirect target', async () => {
    const user = userEvent.setup()
    const { router, fake } = renderApp('/auth?mode=sign-in&redirect=%2Fcreators', { tables: marketplace(), users: [MAYA] })
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Welcome back!')).toBeInTheDocument()
    expect(screen.getByText("You've been signed in successfully.")).toBeInTheDocument()
    await waitFor(() => expect(here(router)).toBe('/creators'))
    expect(fake.auth.signInWithPassword).toHaveBeenCalledWith({ email: MAYA.email, password: MAYA.password })
  })

  it('goes home after sign-in when there is no redirect', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/auth', { tables: marketplace(), users: [MAYA] })
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/'))
  })

  it("shows the server's message when sign-in fails", async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/auth', { tables: marketplace(), users: [MAYA] })
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), 'wrong')
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Invalid login credentials')).toBeInTheDocument()
    expect(screen.getByText('Error')).toBeInTheDocument()
    expect(here(router)).toBe('/auth')
  })

  it('creates an account and asks to verify the e-mail', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/auth?mode=sign-up', { tables: marketplace() })
    await user.type(await screen.findByLabelText('Display name'), 'New Person')
    await user.type(screen.getByLabelText('Email'), 'new@example.com')
    await user.type(screen.getByLabelText('Password'), 'long-password')
    await user.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('Account created!')).toBeInTheDocument()
    expect(screen.getByText('Please check your email to verify your account.')).toBeInTheDocument()
    expect(fake.auth.signUp).toHaveBeenCalledWith(
      expect.objectContaining({
        email: 'new@example.com',
        options: expect.objectContaining({ data: { display_name: 'New Person', avatar_url: '' } }),
      }),
    )
  })

  it('offers both social providers', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/auth', { tables: marketplace() })
    await user.click(await screen.findByRole('button', { name: 'GitHub' }))
    expect(fake.auth.signInWithOAuth).toHaveBeenCalledWith(expect.objectContaining({ provider: 'github' }))
    expect(screen.getByRole('button', { name: 'Google' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Home' })).toHaveAttribute('href', '/')
  })

  // Issue 15, item 3: only what /auth/v1/settings reports as enabled.
  it('offers only the providers the server has enabled', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/auth', { tables: marketplace(), authSettings: { email: true, github: true, google: false } })
    await user.click(await screen.findByRole('button', { name: 'GitHub' }))
    expect(fake.auth.signInWithOAuth).toHaveBeenCalledWith(expect.objectContaining({ provider: 'github' }))
    expect(screen.queryByRole('button', { name: 'Google' })).not.toBeInTheDocument()
    expect(screen.getByText('or continue with')).toBeInTheDocument()
  })

  it('offers no social sign-in (and no divider) when the server has none enabled', async () => {
    const { fake } = renderApp('/auth', { tables: marketplace(), authSettings: { email: true, github: false, google: false } })
    await screen.findByRole('button', { name: 'Sign In' })
    await waitFor(() => expect(fake.calls.some((c) => c.table === 'auth:settings')).toBe(true))
    // Give the settings' answer time to render.
    await new Promise((ok) => setTimeout(ok, 100))
    expect(screen.queryByRole('button', { name: 'GitHub' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Google' })).not.toBeInTheDocument()
    expect(screen.queryByText('or continue with')).not.toBeInTheDocument()
  })

  it('offers no social sign-in when the settings cannot be read, and the form still works', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/auth', { tables: marketplace(), users: [MAYA], authSettings: 'error' })
    await waitFor(() => expect(fake.calls.some((c) => c.table === 'auth:settings')).toBe(true))
    await new Promise((ok) => setTimeout(ok, 100))
    expect(screen.queryByRole('button', { name: 'GitHub' })).not.toBeInTheDocument()
    expect(screen.queryByText('or continue with')).not.toBeInTheDocument()
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/'))
  })
})

describe('navigation memory and guarded routes', () => {
  it('sends visitors from /upload to sign-in and back after signing in', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/upload', { tables: marketplace(), users: [MAYA] })
    await waitFor(() => expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fupload'))
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/upload'))
    expect(await screen.findByRole('heading', { name: 'Upload Template' })).toBeInTheDocument()
  })

  it('returns to the remembered dashboard path after sign-in, then forgets it', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/dashboard/templates?tab=draft', { tables: marketplace(), users: [MAYA] })
    await waitFor(() => expect(router.state.location.pathname).toBe('/auth'))
    expect(useNavMemory.getState().lastPath).toBe('/dashboard/templates?tab=draft')
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=draft'))
  })

  // Issue 15, item 1: a URL the person opened wins over the remembered path.
  it('keeps a signed-in load on the URL it opened, and remembers it', async () => {
    useNavMemory.setState({ lastPath: '/dashboard' })
    const { router } = renderApp('/templates/t-planner', { tables: marketplace(), signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Account menu' })
    await waitFor(() => expect(useNavMemory.getState().lastPath).toBe('/templates/t-planner'))
    // Well past the spec's 100 ms restore delay: still where the person asked to be.
    await new Promise((ok) => setTimeout(ok, 300))
    expect(here(router)).toBe('/templates/t-planner')
    await act(() => router.navigate('/categories'))
    await waitFor(() => expect(useNavMemory.getState().lastPath).toBe('/categories'))
  })

  it('keeps a signed-in load of the site root on the site root', async () => {
    useNavMemory.setState({ lastPath: '/discover?price=free' })
    const { router } = renderApp('/', { tables: marketplace(), signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Account menu' })
    await waitFor(() => expect(useNavMemory.getState().lastPath).toBe('/'))
    await new Promise((ok) => setTimeout(ok, 300))
    expect(here(router)).toBe('/')
  })

  it('goes to an explicit redirect target after sign-in rather than the remembered path', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/auth?mode=sign-in&redirect=%2Fcreators', { tables: marketplace(), users: [MAYA] })
    await screen.findByLabelText('Email')
    // Remembered earlier in this tab (say, where a session ran out).
    useNavMemory.setState({ lastPath: '/dashboard/settings' })
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/creators'))
    await new Promise((ok) => setTimeout(ok, 300))
    expect(here(router)).toBe('/creators')
  })

  it('goes to the remembered path after a sign-in without a redirect target', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/auth?mode=sign-in', { tables: marketplace(), users: [MAYA] })
    await screen.findByLabelText('Email')
    // Remembered earlier in this tab (say, where a session ran out).
    useNavMemory.setState({ lastPath: '/dashboard/settings' })
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/settings'))
    expect(useNavMemory.getState().lastPath).toBe('/dashboard/settings')
  })

  it('does not remember anything for visitors and forgets on sign-out', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/categories', { tables: marketplace(), signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Account menu' })
    await waitFor(() => expect(useNavMemory.getState().lastPath).toBe('/categories'))
    await user.click(screen.getByRole('button', { name: 'Account menu' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Logout' }))
    await waitFor(() => expect(here(router)).toBe('/'))
    expect(useNavMemory.getState().lastPath).toBeNull()
    await act(() => router.navigate('/creators'))
    expect(useNavMemory.getState().lastPath).toBeNull()
  })
})
