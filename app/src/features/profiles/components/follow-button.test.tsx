// The follow button when the backend refuses the write (spec section 8,
// profile): the toast, and the button and follower count as they were.
import { describe, expect, it } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'

const REFUSED = { message: 'new row violates row-level security policy', code: '42501' }

function rpc(following: boolean) {
  return {
    get_follower_count: () => ({ data: following ? 4 : 3 }),
    get_user_following: () => ({ data: [] }),
    is_following: () => ({ data: following }),
  }
}

describe('FollowButton when the write fails', () => {
  it("says 'Failed to update follow status. Please try again.' and still offers Follow", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/leo-builds', {
      tables: marketplace({ followers: [] }),
      rpc: rpc(false),
      signedInAs: MAYA,
      failing: { 'followers:insert': REFUSED },
    })
    await waitFor(() => expect(screen.getByTestId('stat-followers')).toHaveTextContent('3'))
    await user.click(await screen.findByRole('button', { name: 'Follow' }))
    expect(await screen.findByText('Failed to update follow status. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('followers', 'insert')).toHaveLength(1)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Follow' })).toBeEnabled())
    expect(screen.getByRole('button', { name: 'Follow' })).toHaveAttribute('aria-pressed', 'false')
    expect(screen.getByTestId('stat-followers')).toHaveTextContent('3')
    expect(fake.tables.followers).toEqual([])
  })

  it('keeps Following when the unfollow fails', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/leo-builds', {
      tables: marketplace({ followers: [{ follower_id: MAYA.id, following_id: 'u-leo' }] }),
      rpc: rpc(true),
      signedInAs: MAYA,
      failing: { 'followers:delete': REFUSED },
    })
    await waitFor(() => expect(screen.getByTestId('stat-followers')).toHaveTextContent('4'))
    await user.click(await screen.findByRole('button', { name: 'Following' }))
    expect(await screen.findByText('Failed to update follow status. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('followers', 'delete')).toHaveLength(1)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Following' })).toBeEnabled())
    expect(screen.getByRole('button', { name: 'Following' })).toHaveAttribute('aria-pressed', 'true')
    expect(screen.getByTestId('stat-followers')).toHaveTextContent('4')
    expect(fake.tables.followers).toHaveLength(1)
  })
})
