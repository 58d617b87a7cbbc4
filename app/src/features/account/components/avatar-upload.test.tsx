// The avatar when the profile row cannot be written after the upload (spec
// section 8, profile: 'Failed to update avatar. Please try again.'); a failed
// upload is covered in app/routes/profile.test.tsx.
import { describe, expect, it, vi } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'

const OLD = 'http://localhost:3000/storage/v1/object/public/avatars/u-maya/old.png'

describe('AvatarUpload when the profile write fails', () => {
  it("says 'Failed to update avatar. Please try again.' and keeps the old avatar", async () => {
    vi.stubGlobal('createImageBitmap', async () => ({ width: 600, height: 600, close: () => {} }))
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', {
      tables: marketplace({ profiles: [{ id: 'u-maya', username: 'mayachen', display_name: 'Maya Chen', avatar_url: OLD, bio: null, social_links: {}, created_at: '2024-01-01T00:00:00Z' }] }),
      rpc: {
        get_follower_count: () => ({ data: 0 }),
        get_user_following: () => ({ data: [] }),
        is_following: () => ({ data: false }),
      },
      signedInAs: MAYA,
      failing: { 'profiles:update': { message: 'new row violates row-level security policy', code: '42501' } },
    })
    await screen.findByRole('button', { name: 'Change avatar' })
    const file = new File(['x'], 'me.png', { type: 'image/png' })
    await user.upload(screen.getByTestId('avatar-input'), file)
    expect(await screen.findByText('Failed to update avatar. Please try again.')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(1)
    expect(fake.callsTo('profiles', 'update')).toHaveLength(1)
    expect(screen.queryByText('Avatar updated successfully')).not.toBeInTheDocument()
    expect(fake.tables.profiles.find((p) => p.id === 'u-maya')!.avatar_url).toBe(OLD)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Change avatar' })).toBeEnabled())
    vi.unstubAllGlobals()
  })
})
