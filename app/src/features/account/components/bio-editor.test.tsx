// The bio editor when the backend refuses the write (spec section 8,
// profile): the toast, the editor stays open with the text, the bio as it was.
import { describe, expect, it } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'

const rpc = {
  get_follower_count: () => ({ data: 3 }),
  get_user_following: () => ({ data: [] }),
  is_following: () => ({ data: false }),
}

describe('BioEditor when the write fails', () => {
  it("says 'Failed to update bio' and keeps the stored bio and the typed text", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/profile/mayachen', {
      tables: marketplace(),
      rpc,
      signedInAs: MAYA,
      failing: { 'profiles:update': { message: 'value too long for type character varying(500)', code: '22001' } },
    })
    const stored = fake.tables.profiles.find((p) => p.id === MAYA.id)!.bio
    await user.click(await screen.findByRole('button', { name: 'Edit bio' }))
    const box = screen.getByLabelText('Bio')
    await user.clear(box)
    await user.type(box, 'A bio that will not be saved')
    await user.click(screen.getByRole('button', { name: 'Save' }))
    expect(await screen.findByText('Failed to update bio')).toBeInTheDocument()
    expect(fake.callsTo('profiles', 'update')).toHaveLength(1)
    expect(screen.queryByText('Bio updated successfully')).not.toBeInTheDocument()
    // Still editing, so the text can be sent again; the stored bio is unchanged.
    await waitFor(() => expect(screen.getByRole('button', { name: 'Save' })).toBeEnabled())
    expect(screen.getByLabelText('Bio')).toHaveValue('A bio that will not be saved')
    expect(fake.tables.profiles.find((p) => p.id === MAYA.id)!.bio).toBe(stored)
  })
})
