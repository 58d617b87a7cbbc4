import { describe, expect, it, vi } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'
import type { Row } from '@/testing/fake-supabase'

const NEW_USER = { id: 'u-new', email: 'new@example.com', password: 'secret-pass', display_name: 'New Person' }
const OLD_AVATAR = 'http://localhost:3000/storage/v1/object/public/avatars/u-new/1700000000000-old.png'
const NEW_PROFILE: Row = {
  id: 'u-new',
  username: null,
  display_name: 'New Person',
  avatar_url: OLD_AVATAR,
  bio: 'Hello there.',
  social_links: { website: 'https://example.com/me' },
  created_at: '2024-06-01T00:00:00Z',
}

function tables() {
  return marketplace({ profiles: [...PROFILES, NEW_PROFILE] })
}

function section(name: string) {
  return screen.getByRole('region', { name })
}

function image(name: string, type: string, bytes: number): File {
  const file = new File(['x'], name, { type })
  Object.defineProperty(file, 'size', { value: bytes })
  return file
}

function withSize(width: number, height: number) {
  vi.stubGlobal('createImageBitmap', async () => ({ width, height, close: () => {} }))
}

async function openAsNewUser() {
  const view = renderApp('/dashboard/profile', { tables: tables(), signedInAs: NEW_USER })
  await screen.findByRole('heading', { level: 1, name: 'Profile' })
  await screen.findByRole('region', { name: 'Username' })
  return view
}

describe('dashboard profile', () => {
  it('shows every section with the current values, and a set username locked', async () => {
    renderApp('/dashboard/profile', { tables: tables(), signedInAs: MAYA })
    const username = await screen.findByRole('region', { name: 'Username' })
    expect(within(username).getByLabelText('Username')).toHaveValue('mayachen')
    expect(within(username).getByLabelText('Username')).toBeDisabled()
    expect(within(username).getByTestId('username-locked')).toHaveTextContent('Your username is set and cannot be changed')
    expect(within(username).queryByRole('button', { name: 'Save username' })).not.toBeInTheDocument()
    expect(within(username).getByRole('link', { name: 'View your public profile' })).toHaveAttribute('href', '/profile/mayachen')
    expect(within(section('Display Name')).getByLabelText('Display name')).toHaveValue('Maya Chen')
    expect(within(section('Bio')).getByLabelText('Bio')).toHaveValue('Systems designer.')
    const social = section('Social Links')
    expect(within(social).getByLabelText('Website')).toHaveValue('https://example.com/maya')
    expect(within(social).getByLabelText('Website')).toHaveAttribute('type', 'url')
    for (const label of ['X', 'Instagram', 'YouTube']) {
      expect(within(social).getByLabelText(label)).toHaveAttribute('type', 'url')
    }
    expect(within(section('Profile Picture')).getByText(/Recommended size: 400x400px/)).toBeInTheDocument()
  })

  it('lowercases the username and shows the rule it breaks', async () => {
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    const input = within(section('Username')).getByLabelText('Username')
    await user.type(input, 'Bad Name!')
    expect(input).toHaveValue('bad name!')
    expect(within(section('Username')).getByRole('alert')).toHaveTextContent(
      'Username can only contain lowercase letters, numbers, underscores, and hyphens',
    )
    await user.clear(input)
    await user.type(input, 'AB')
    expect(input).toHaveValue('ab')
    expect(within(section('Username')).getByRole('alert')).toHaveTextContent('Username must be between 3 and 30 characters')
    await user.click(screen.getByRole('button', { name: 'Save username' }))
    await user.clear(input)
    await user.type(input, 'x'.repeat(31))
    expect(within(section('Username')).getByRole('alert')).toHaveTextContent('Username must be between 3 and 30 characters')
    await user.click(screen.getByRole('button', { name: 'Save username' }))
    expect(fake.callsTo('profiles', 'update')).toHaveLength(0)
  })

  it('refuses a username another profile has, looking it up without the own profile', async () => {
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    await user.type(within(section('Username')).getByLabelText('Username'), 'Leo-Builds')
    await user.click(screen.getByRole('button', { name: 'Save username' }))
    expect(await within(section('Username')).findByText('This username is already taken. Please choose another.')).toBeInTheDocument()
    const lookup = fake.callsTo('profiles', 'select').find((c) => c.filters.includes('username=eq.leo-builds'))
    expect(lookup?.filters).toEqual(['username=eq.leo-builds', 'id=neq.u-new'])
    expect(fake.callsTo('profiles', 'update')).toHaveLength(0)
  })

  it('sets the username once, then shows it locked', async () => {
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    await user.type(within(section('Username')).getByLabelText('Username'), 'New_Maker-1')
    await user.click(screen.getByRole('button', { name: 'Save username' }))
    expect(await screen.findByText('Username updated successfully')).toBeInTheDocument()
    const [update] = fake.callsTo('profiles', 'update')
    expect(update.payload).toMatchObject({ username: 'new_maker-1' })
    expect(update.filters).toEqual(['id=eq.u-new'])
    expect(await within(section('Username')).findByTestId('username-locked')).toBeInTheDocument()
    expect(within(section('Username')).getByLabelText('Username')).toHaveValue('new_maker-1')
    expect(within(section('Username')).getByLabelText('Username')).toBeDisabled()
  })

  it('requires a display name, then saves it to the profile and the auth user', async () => {
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    const input = within(section('Display Name')).getByLabelText('Display name')
    await user.clear(input)
    await user.type(input, '   ')
    await user.click(screen.getByRole('button', { name: 'Save display name' }))
    expect(within(section('Display Name')).getByRole('alert')).toHaveTextContent('Display name cannot be empty')
    expect(fake.callsTo('profiles', 'update')).toHaveLength(0)
    await user.clear(input)
    await user.type(input, '  Renamed Person ')
    await user.click(screen.getByRole('button', { name: 'Save display name' }))
    expect(await screen.findByText('Display name updated successfully')).toBeInTheDocument()
    const [update] = fake.callsTo('profiles', 'update')
    expect(update.payload).toMatchObject({ display_name: 'Renamed Person' })
    expect(update.filters).toEqual(['id=eq.u-new'])
    expect(fake.callsTo('auth:updateUser')).toEqual([
      { table: 'auth:updateUser', op: 'updateUser', payload: { data: { display_name: 'Renamed Person' } }, filters: [] },
    ])
    expect(fake.tables.profiles.find((p) => p.id === 'u-new')?.display_name).toBe('Renamed Person')
  })

  it('saves the bio on its own', async () => {
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    const input = within(section('Bio')).getByLabelText('Bio')
    await user.clear(input)
    await user.type(input, 'I make planners.')
    await user.click(screen.getByRole('button', { name: 'Save bio' }))
    expect(await screen.findByText('Bio updated successfully')).toBeInTheDocument()
    const [update] = fake.callsTo('profiles', 'update')
    expect(update.payload).toMatchObject({ bio: 'I make planners.' })
    expect(update.payload).not.toHaveProperty('display_name')
    expect(update.filters).toEqual(['id=eq.u-new'])
  })

  it('checks social links are URLs and stores the filled ones under their keys', async () => {
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    const social = section('Social Links')
    await user.type(within(social).getByLabelText('X'), 'not a url')
    await user.click(within(social).getByRole('button', { name: 'Save social links' }))
    expect(within(social).getByRole('alert')).toHaveTextContent('Enter a full URL starting with http:// or https://')
    expect(fake.callsTo('profiles', 'update')).toHaveLength(0)
    await user.clear(within(social).getByLabelText('X'))
    await user.type(within(social).getByLabelText('X'), 'https://x.com/newperson')
    await user.type(within(social).getByLabelText('YouTube'), ' https://youtube.com/@newperson ')
    await user.clear(within(social).getByLabelText('Website'))
    await user.click(within(social).getByRole('button', { name: 'Save social links' }))
    expect(await screen.findByText('Social links updated successfully')).toBeInTheDocument()
    const [update] = fake.callsTo('profiles', 'update')
    expect(update.payload).toMatchObject({
      social_links: { twitter: 'https://x.com/newperson', github: 'https://youtube.com/@newperson' },
    })
    expect((update.payload as { social_links: object }).social_links).not.toHaveProperty('website')
    expect(update.filters).toEqual(['id=eq.u-new'])
  })

  it('rejects a non-image and a 5 MB avatar', async () => {
    const user = userEvent.setup({ applyAccept: false })
    const { fake } = await openAsNewUser()
    await user.upload(screen.getByLabelText('Profile picture file'), image('notes.txt', 'text/plain', 100))
    expect(await screen.findByText('Please upload an image file')).toBeInTheDocument()
    await user.upload(screen.getByLabelText('Profile picture file'), image('huge.png', 'image/png', 5 * 1024 * 1024))
    expect(await screen.findByText('File size must be less than 5MB')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(0)
  })

  it('uploads a small avatar with the 400x400px warning, removing the previous file first', async () => {
    withSize(120, 120)
    const user = userEvent.setup()
    const { fake } = await openAsNewUser()
    await user.upload(screen.getByLabelText('Profile picture file'), image('Me.PNG', 'image/png', 2048))
    expect(await screen.findByText('Image is smaller than recommended size (400x400px). This may affect quality.')).toBeInTheDocument()
    expect(await screen.findByText('Avatar updated successfully')).toBeInTheDocument()
    expect(fake.removals).toEqual([{ bucket: 'avatars', paths: ['u-new/1700000000000-old.png'] }])
    expect(fake.uploads).toHaveLength(1)
    expect(fake.uploads[0].bucket).toBe('avatars')
    expect(fake.uploads[0].path).toMatch(/^u-new\/\d{13}-[a-z0-9]+\.png$/)
    expect(fake.uploads[0].options).toMatchObject({ upsert: true })
    const [update] = fake.callsTo('profiles', 'update')
    expect(update.payload).toMatchObject({ avatar_url: `http://localhost:3000/storage/v1/object/public/avatars/${fake.uploads[0].path}` })
    expect(update.filters).toEqual(['id=eq.u-new'])
    // The new picture replaces the old one on the page, as a sized rendition.
    await waitFor(() =>
      expect(within(section('Profile Picture')).getByRole('img', { name: "New Person's avatar" })).toHaveAttribute(
        'src',
        `http://localhost:3000/storage/v1/render/image/public/avatars/${fake.uploads[0].path}?width=224&height=224&resize=cover`,
      ),
    )
  })

  it('warns about a large avatar with the 400x400px text', async () => {
    withSize(1600, 1200)
    const user = userEvent.setup()
    await openAsNewUser()
    await user.upload(screen.getByLabelText('Profile picture file'), image('big.jpg', 'image/jpeg', 4096))
    expect(await screen.findByText('Image is larger than recommended size (400x400px). It will be resized.')).toBeInTheDocument()
    expect(await screen.findByText('Avatar updated successfully')).toBeInTheDocument()
  })
})
