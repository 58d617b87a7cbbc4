import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA, template, TEMPLATES } from '@/testing/fixtures'
import { toEdit, validate } from '@/features/dashboard/components/edit-template'

const MINE = template({
  id: 't-mine',
  title: 'Calm Planner',
  description: 'Plan the week.',
  about_template: '## About\n\nIt helps.',
  price: '12.50',
  price_in_cents: 1250,
  tags: ['planner', 'weekly'],
  features_included: ['Template file', 'Setup instructions'],
  requirements: ['A free workspace-app account'],
  preview_image_url: 'http://localhost:3000/storage/v1/object/public/templates/u-maya/previews/1-a.png',
  preview_images: ['http://localhost:3000/storage/v1/object/public/templates/u-maya/previews/1-a.png', '/demo/b.svg'],
})

function tables() {
  return marketplace({ templates: [...TEMPLATES, MINE] })
}

describe('edit template', () => {
  it('loads the user’s template by id and owner, with read-only previews and status', async () => {
    const { fake } = renderApp('/dashboard/templates/edit/t-mine', { tables: tables(), signedInAs: MAYA })
    expect(await screen.findByLabelText('Title')).toHaveValue('Calm Planner')
    expect(fake.callsTo('templates', 'select')[0].filters).toEqual(['id=eq.t-mine', 'user_id=eq.u-maya'])
    expect(screen.getByLabelText('Short description')).toHaveValue('Plan the week.')
    expect(screen.getByRole('textbox', { name: 'About this template' })).toHaveValue('## About\n\nIt helps.')
    // The shared editor in its rich variant: underline and code block are there.
    expect(screen.getByRole('button', { name: 'Underline' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Code block' })).toBeInTheDocument()
    const price = screen.getByLabelText('Price (USD)')
    expect(price).toHaveValue(12.5)
    expect(price).toHaveAttribute('min', '0')
    expect(price).toHaveAttribute('step', '0.01')
    expect(screen.getByLabelText('Features included')).toHaveValue('Template file\nSetup instructions')
    expect(screen.getByLabelText('Requirements')).toHaveValue('A free workspace-app account')
    const previews = screen.getByRole('region', { name: 'Preview images' })
    expect(within(previews).getAllByRole('img')).toHaveLength(2) // the main preview is not repeated
    expect(within(previews).queryByRole('textbox')).not.toBeInTheDocument()
    expect(within(screen.getByRole('region', { name: 'Current status' })).getByText('Published')).toBeInTheDocument()
  })

  it('saves title, description, about, price, tags, features and requirements by id and owner', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/templates/edit/t-mine', { tables: tables(), signedInAs: MAYA })
    const title = await screen.findByLabelText('Title')
    await user.clear(title)
    await user.type(title, '  Calmer Planner ')
    await user.clear(screen.getByLabelText('Price (USD)'))
    await user.type(screen.getByLabelText('Price (USD)'), '9.99')
    const about = screen.getByRole('textbox', { name: 'About this template' })
    await user.clear(about)
    await user.type(about, 'New about')
    const features = screen.getByLabelText('Features included')
    await user.clear(features)
    await user.type(features, 'One{Enter}{Enter}  Two  {Enter}   {Enter}Three')
    await user.clear(screen.getByLabelText('Requirements'))
    // Tags: Enter adds, duplicates and blanks are ignored, a tag can be removed.
    await user.type(screen.getByLabelText('Tags'), ' focus {Enter}')
    await user.type(screen.getByLabelText('Tags'), 'planner{Enter}')
    await user.click(screen.getByRole('button', { name: 'Add tag' }))
    await user.click(screen.getByRole('button', { name: 'Remove tag weekly' }))

    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Template updated successfully')).toBeInTheDocument()
    const updates = fake.callsTo('templates', 'update')
    expect(updates).toHaveLength(1)
    expect(updates[0].filters).toEqual(['id=eq.t-mine', 'user_id=eq.u-maya'])
    const payload = updates[0].payload as Record<string, unknown>
    expect(payload).toEqual({
      title: 'Calmer Planner',
      description: 'Plan the week.',
      about_template: 'New about',
      price: 9.99,
      tags: ['planner', 'focus'],
      features_included: ['One', 'Two', 'Three'],
      requirements: [],
      updated_at: expect.any(String),
    })
    expect(Number.isNaN(Date.parse(payload.updated_at as string))).toBe(false)
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=published'))
    expect(fake.tables.templates.find((t) => t.id === 't-mine')!.title).toBe('Calmer Planner')
  })

  it('does not load another user’s template', async () => {
    // t-crm belongs to Leo.
    const { fake } = renderApp('/dashboard/templates/edit/t-crm', { tables: tables(), signedInAs: MAYA })
    expect(await screen.findByText('Template not found')).toBeInTheDocument()
    expect(screen.getByText("This template doesn't exist or you don't have permission to edit it.")).toBeInTheDocument()
    expect(screen.queryByLabelText('Title')).not.toBeInTheDocument()
    expect(fake.callsTo('templates', 'select')[0].filters).toEqual(['id=eq.t-crm', 'user_id=eq.u-maya'])
    expect(fake.callsTo('templates', 'update')).toHaveLength(0)
  })

  it('checks the title and price before saving', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/templates/edit/t-mine', { tables: tables(), signedInAs: MAYA })
    const title = await screen.findByLabelText('Title')
    await user.clear(title)
    await user.type(title, 'ab')
    await user.clear(screen.getByLabelText('Price (USD)'))
    await user.type(screen.getByLabelText('Price (USD)'), '-1')
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Title must be between 3 and 30 characters long')).toBeInTheDocument()
    expect(screen.getByText('Price must be a number of 0 or more')).toBeInTheDocument()
    expect(title).toHaveAttribute('aria-invalid', 'true')
    expect(fake.callsTo('templates', 'update')).toHaveLength(0)
  })

  it('reports a failed save and stays on the page', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/templates/edit/t-mine', { tables: tables(), signedInAs: MAYA })
    await screen.findByLabelText('Title')
    fake.failing.templates = { message: 'permission denied', code: '42501' }
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Failed to update template. Please try again.')).toBeInTheDocument()
    expect(here(router)).toBe('/dashboard/templates/edit/t-mine')
  })

  it('builds the payload: blank lines dropped, price parsed with 0 as fallback', () => {
    const form = { title: ' T1tle ', description: ' d ', about: 'a', price: '', tags: ['x'], features: '\n a \n\n b\n', requirements: '  ' }
    expect(toEdit(form)).toEqual({ title: 'T1tle', description: 'd', about_template: 'a', price: 0, tags: ['x'], features_included: ['a', 'b'], requirements: [] })
    expect(toEdit({ ...form, price: '19.999' }).price).toBe(20)
    expect(validate(form)).toEqual({})
    expect(validate({ ...form, title: 'x'.repeat(31) }).title).toBe('Title must be between 3 and 30 characters long')
    expect(validate({ ...form, price: 'abc' }).price).toBe('Price must be a number of 0 or more')
  })
})
