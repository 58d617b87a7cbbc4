import { describe, expect, it, vi } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'
import { avatarDimensionWarnings, avatarFileError } from '@/features/account/image-checks'

const STATS = { id: 'u-maya', templates_count: 2, total_downloads: 1880, total_upvotes: 5, rating: 4.5, weekly_growth_percentage: 25, categories: ['Productivity', 'Finance'] }
const PENDING = [
  { id: 'p-1', creator_id: 'u-maya', title: 'Exam Countdown', description: 'Revision slots.', price: 0, preview_image_url: null, tags: [], status: 'Pending Approval', created_at: '2024-05-05T00:00:00Z' },
]

function image(name: string, type: string, bytes: number): File {
  const file = new File(['x'], name, { type })
  Object.defineProperty(file, 'size', { value: bytes })
  return file
}

function withSize(width: number, height: number) {
  vi.stubGlobal('createImageBitmap', async () => ({ width, height, close: () => {} }))
}

const rpc = {
  get_follower_count: () => ({ data: 3 }),
  get_user_following: () => ({ data: [{ id: 'u-leo' }] }),
  is_following: () => ({ data: false }),
}

describe('avatar checks', () => {
  it('accepts only images under 5 MB', () => {
    expect(avatarFileError(image('a.pdf', 'application/pdf', 10))).toBe('Please upload an image file')
    expect(avatarFileError(image('a.png', 'image/png', 5 * 1024 * 1024))).toBe('File size must be less than 5MB')
    expect(avatarFileError(image('a.png', 'image/png', 5 * 1024 * 1024 - 1))).toBeNull()
  })
  it('warns below 400 px and above 1000 px', () => {
    expect(avatarDimensionWarnings(500, 500)).toEqual([])
    expect(avatarDimensionWarnings(399, 800)).toEqual(['Image is smaller than recommended size (500x500px). This may affect quality.'])
    expect(avatarDimensionWarnings(600, 1001)).toEqual(['Image is larger than recommended size (500x500px). It will be resized.'])
    expect(avatarDimensionWarnings(300, 300, '400x400px')[0]).toContain('(400x400px)')
  })
})

describe('profile page', () => {
  it('shows a profile by username with stats and the creator statistics block', async () => {
    renderApp('/profile/mayachen', { tables: marketplace({ creator_statistics: [STATS] }), rpc })
    expect(await screen.findByRole('heading', { level: 1, name: 'Maya Chen' })).toBeInTheDocument()
    expect(screen.getByText('@mayachen')).toBeInTheDocument()
    expect(screen.getByText('Systems designer.')).toBeInTheDocument()
    await waitFor(() => expect(screen.getByTestId('stat-followers')).toHaveTextContent('3'))
    expect(screen.getByTestId('stat-following')).toHaveTextContent('1')
    expect(await screen.findByTestId('weekly-growth')).toHaveTextContent('+25% this week')
    expect(screen.getByRole('region', { name: 'Creator statistics' })).toBeInTheDocument()
    expect(await screen.findByRole('tab', { name: 'Templates (2)' })).toBeInTheDocument()
    // Templates and Downloads once, in the creator statistics (issue 44: the header repeated them).
    for (const label of ['Templates', 'Downloads']) expect(screen.getAllByText(label, { selector: 'dt' })).toHaveLength(1)
    expect(screen.getByRole('button', { name: 'Follow' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Change avatar' })).not.toBeInTheDocument()
  })

  it('finds a profile by id and hides the statistics block without templates or rating', async () => {
    renderApp('/profile/00000000-0000-4000-8000-00000000000a', {
      tables: marketplace({
        profiles: [{ id: '00000000-0000-4000-8000-00000000000a', username: null, display_name: 'No Name Yet', avatar_url: null, bio: null, social_links: {}, created_at: '2024-01-01T00:00:00Z' }],
        creator_statistics: [],
      }),
      rpc,
    })
    expect(await screen.findByRole('heading', { level: 1, name: 'No Name Yet' })).toBeInTheDocument()
    expect(await screen.findByText('No templates yet')).toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Creator statistics' })).not.toBeInTheDocument()
  })

  it('hides weekly growth when it is not above 0', async () => {
    renderApp('/profile/mayachen', { tables: marketplace({ creator_statistics: [{ ...STATS, weekly_growth_percentage: 0 }] }), rpc })
    expect(await screen.findByRole('region', { name: 'Creator statistics' })).toBeInTheDocument()
    expect(screen.queryByTestId('weekly-growth')).not.toBeInTheDocument()
  })

  it('says Profile Not Found for an unknown username', async () => {
    renderApp('/profile/nobody', { tables: marketplace(), rpc })
    expect(await screen.findByText('Profile Not Found')).toBeInTheDocument()
    expect(screen.getByText('The requested profile could not be found.')).toBeInTheDocument()
  })

  it('asks visitors to sign in to follow, and follows for signed-in users', async () => {
    const user = userEvent.setup()
    renderApp('/profile/leo-builds', { tables: marketplace(), rpc })
    await user.click(await screen.findByRole('button', { name: 'Follow' }))
    expect(await screen.findByText('Authentication Required')).toBeInTheDocument()
    expect(screen.getByText('Please sign in to follow creators')).toBeInTheDocument()
  })

  it('follows and unfollows', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/leo-builds', { tables: marketplace({ followers: [] }), rpc, signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Follow' }))
    expect(await screen.findByText('Following', { selector: '[data-title]' })).toBeInTheDocument()
    expect(fake.tables.followers).toEqual([{ follower_id: MAYA.id, following_id: 'u-leo' }])
    await waitFor(() => expect(screen.getByTestId('stat-followers')).toHaveTextContent('4'))
    await user.click(screen.getByRole('button', { name: 'Following' }))
    expect(await screen.findByText('Unfollowed')).toBeInTheDocument()
    expect(fake.tables.followers).toEqual([])
  })

  it('rejects a non-image avatar', async () => {
    const user = userEvent.setup({ applyAccept: false })
    const { fake } = renderApp('/profile/mayachen', { tables: marketplace(), rpc, signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Change avatar' })
    await user.upload(screen.getByTestId('avatar-input'), image('notes.txt', 'text/plain', 100))
    expect(await screen.findByText('Please upload an image file')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(0)
  })

  it('rejects an SVG avatar, which can carry script, before uploading it', async () => {
    const user = userEvent.setup({ applyAccept: false })
    const { fake } = renderApp('/profile/mayachen', { tables: marketplace(), rpc, signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Change avatar' })
    expect(screen.getByTestId('avatar-input').getAttribute('accept')).not.toContain('svg')
    await user.upload(screen.getByTestId('avatar-input'), image('me.svg', 'image/svg+xml', 100))
    expect(await screen.findByText('Please upload an image file')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(0)
  })

  it('rejects an avatar of 5 MB or more', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', { tables: marketplace(), rpc, signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Change avatar' })
    await user.upload(screen.getByTestId('avatar-input'), image('huge.png', 'image/png', 6 * 1024 * 1024))
    expect(await screen.findByText('File size must be less than 5MB')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(0)
  })

  it('warns about a small avatar and uploads it to avatars/{userId}/{timestamp}-{random}.{ext}', async () => {
    withSize(200, 200)
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', {
      tables: marketplace({ profiles: [{ id: 'u-maya', username: 'mayachen', display_name: 'Maya Chen', avatar_url: 'http://localhost:3000/storage/v1/object/public/avatars/u-maya/old.png', bio: null, social_links: {}, created_at: '2024-01-01T00:00:00Z' }] }),
      rpc,
      signedInAs: MAYA,
    })
    await screen.findByRole('button', { name: 'Change avatar' })
    await user.upload(screen.getByTestId('avatar-input'), image('me.png', 'image/png', 2048))
    expect(await screen.findByText('Image is smaller than recommended size (500x500px). This may affect quality.')).toBeInTheDocument()
    expect(await screen.findByText('Avatar updated successfully')).toBeInTheDocument()
    expect(fake.removals).toEqual([{ bucket: 'avatars', paths: ['u-maya/old.png'] }])
    expect(fake.uploads).toHaveLength(1)
    expect(fake.uploads[0].bucket).toBe('avatars')
    expect(fake.uploads[0].path).toMatch(/^u-maya\/\d+-[a-z0-9]+\.png$/)
    expect(fake.uploads[0].options).toMatchObject({ upsert: true })
    const row = fake.tables.profiles.find((p) => p.id === 'u-maya')!
    expect(row.avatar_url).toBe(`http://localhost:3000/storage/v1/object/public/avatars/${fake.uploads[0].path}`)
  })

  it('warns about a large avatar', async () => {
    withSize(1200, 900)
    const user = userEvent.setup()
    renderApp('/profile/mayachen', { tables: marketplace(), rpc, signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Change avatar' })
    await user.upload(screen.getByTestId('avatar-input'), image('big.jpg', 'image/jpeg', 4096))
    expect(await screen.findByText('Image is larger than recommended size (500x500px). It will be resized.')).toBeInTheDocument()
  })

  it('reports a failed avatar upload', async () => {
    withSize(500, 500)
    const user = userEvent.setup()
    renderApp('/profile/mayachen', { tables: marketplace(), rpc, signedInAs: MAYA, failing: { 'storage:avatars': { message: 'nope' } } })
    await screen.findByRole('button', { name: 'Change avatar' })
    await user.upload(screen.getByTestId('avatar-input'), image('me.png', 'image/png', 2048))
    expect(await screen.findByText('Failed to update avatar. Please try again.')).toBeInTheDocument()
  })

  it('lets the owner edit the bio', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', { tables: marketplace(), rpc, signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Edit bio' }))
    const box = screen.getByLabelText('Bio')
    await user.clear(box)
    await user.type(box, 'New bio here')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect(await screen.findByText('Bio updated successfully')).toBeInTheDocument()
    expect(fake.tables.profiles.find((p) => p.id === 'u-maya')!.bio).toBe('New bio here')
  })

  it('shows the owner a Pending Review tab and deletes after confirmation', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', {
      tables: marketplace({ templates_pending_approval: PENDING }),
      rpc: {
        ...rpc,
        delete_unpublished_template: ({ kind, template_id }) => {
          expect(kind).toBe('pending')
          expect(template_id).toBe('p-1')
          return { data: ['u-maya/previews/1-a.png', '/demo/study.svg'] }
        },
      },
      signedInAs: MAYA,
    })
    await user.click(await screen.findByRole('tab', { name: 'Pending Review (1)' }))
    await user.click(await screen.findByRole('button', { name: 'Delete Exam Countdown' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Are you sure?' })
    expect(within(dialog).getByText('This action cannot be undone. This will permanently delete your template')).toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(fake.rpc).not.toHaveBeenCalledWith('delete_unpublished_template', expect.anything())
    await user.click(screen.getByRole('button', { name: 'Delete Exam Countdown' }))
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    expect(fake.removals).toEqual([{ bucket: 'templates', paths: ['u-maya/previews/1-a.png'] }])
  })

  it('does not show Pending Review to other people', async () => {
    renderApp('/profile/mayachen', { tables: marketplace({ templates_pending_approval: PENDING }), rpc })
    await screen.findByRole('tab', { name: /Templates/ })
    expect(screen.queryByRole('tab', { name: /Pending Review/ })).not.toBeInTheDocument()
  })
})
