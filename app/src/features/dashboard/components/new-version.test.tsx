// Edit template → Publish an update (issue 44, item 6): the creator of a
// published template replaces its file and previews with a changelog line;
// the template page then says "Updated on" with the line.
import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA, template, TEMPLATES } from '@/testing/fixtures'
import { versionErrors } from './new-version'

const PAID = template({ id: 't-mine', title: 'Calm Planner', price: '12.50', price_in_cents: 1250 })
const FREE = template({ id: 't-free', title: 'Free Planner', price: 0, price_in_cents: 0 })
const PUBLIC = 'http://localhost:3000/storage/v1/object/public/templates/'

function png(name: string): File {
  return new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' })
}

function setup(extra: Record<string, unknown[]> = {}, answer?: (args: Record<string, unknown>) => unknown) {
  const calls: Array<Record<string, unknown>> = []
  return {
    calls,
    options: {
      tables: marketplace({ templates: [...TEMPLATES, PAID, FREE], ...(extra as Record<string, never[]>) }),
      signedInAs: MAYA,
      rpc: {
        add_template_version: (args: Record<string, unknown>) => {
          calls.push(args)
          return (answer?.(args) as object) ?? { data: { version: 2, changelog: args.changelog, created_at: '2026-11-28T10:00:00Z' } }
        },
      },
    },
  }
}

describe('publish an update of a published template', () => {
  it('stores a paid template’s new file privately and a new preview publicly, then publishes them with the line', async () => {
    const user = userEvent.setup({ applyAccept: false })
    const { calls, options } = setup()
    const { fake } = renderApp('/dashboard/templates/edit/t-mine', options)
    const section = await screen.findByRole('region', { name: 'Publish an update' })
    expect(within(section).getByText(/the file stays private to buyers/)).toBeInTheDocument()
    await user.upload(within(section).getByLabelText('New template file'), new File(['v2'], 'planner v2.zip', { type: 'application/zip' }))
    await user.upload(within(section).getByLabelText('New main preview'), png('cover2.png'))
    await user.click(within(section).getByLabelText('What changed'))
    await user.paste('  Fixed the weekly view.  ')
    await user.click(within(section).getByRole('button', { name: 'Publish update' }))
    expect(await screen.findByText('Version 2 published. Buyers now get the new version.')).toBeInTheDocument()

    expect(calls).toHaveLength(1)
    const file = fake.uploads.find((u) => u.path.endsWith('/planner v2.zip'))!
    expect(file.bucket).toBe('template-files')
    expect(file.path).toMatch(/^u-maya\/files\/\d{13}-[a-z0-9]+\/planner v2\.zip$/)
    const preview = fake.uploads.find((u) => u.path.startsWith('u-maya/previews/'))!
    expect(preview.bucket).toBe('templates')
    expect(calls[0]).toEqual({
      template_id: 't-mine',
      changelog: 'Fixed the weekly view.',
      new_file: `template-files/${file.path}`,
      new_preview_image_url: PUBLIC + preview.path,
    })
    expect('new_preview_images' in calls[0] && calls[0].new_preview_images !== undefined).toBe(false)
    // The form is emptied for the next update.
    await waitFor(() => expect(within(section).getByLabelText('What changed')).toHaveValue(''))
  })

  it('puts a free template’s new file in the public bucket, and may replace only the additional previews', async () => {
    const user = userEvent.setup({ applyAccept: false })
    const { calls, options } = setup()
    const { fake } = renderApp('/dashboard/templates/edit/t-free', options)
    const section = await screen.findByRole('region', { name: 'Publish an update' })
    await user.upload(within(section).getByLabelText(/New additional previews/), [png('a.png'), png('b.png')])
    await user.click(within(section).getByLabelText('What changed'))
    await user.paste('Clearer screenshots')
    await user.click(within(section).getByRole('button', { name: 'Publish update' }))
    await screen.findByText('Version 2 published. Buyers now get the new version.')
    expect(calls[0].new_file).toBeUndefined()
    expect(calls[0].new_preview_image_url).toBeUndefined()
    expect(calls[0].new_preview_images).toEqual(fake.uploads.map((u) => PUBLIC + u.path))
    expect(fake.uploads.every((u) => u.bucket === 'templates')).toBe(true)
  })

  it('asks for a file or previews and a line before uploading anything', async () => {
    const user = userEvent.setup()
    const { calls, options } = setup()
    const { fake } = renderApp('/dashboard/templates/edit/t-mine', options)
    const section = await screen.findByRole('region', { name: 'Publish an update' })
    await user.click(within(section).getByRole('button', { name: 'Publish update' }))
    expect(await within(section).findByText('Describe what changed in this version.')).toBeInTheDocument()
    expect(within(section).getByText('Choose a new template file or new preview images.')).toBeInTheDocument()
    expect(calls).toHaveLength(0)
    expect(fake.uploads).toHaveLength(0)
    expect(versionErrors('x'.repeat(201), { file: png('a.png'), mainPreview: null, previews: null }).changelog).toBe('At most 200 characters.')
  })

  it('says why the server refused, and removes the files it stored', async () => {
    const user = userEvent.setup({ applyAccept: false })
    const { options } = setup({}, () => ({
      error: { message: 'Only the template\'s creator can publish a new version of it.', code: '42501' },
    }))
    const { fake } = renderApp('/dashboard/templates/edit/t-mine', options)
    const section = await screen.findByRole('region', { name: 'Publish an update' })
    await user.upload(within(section).getByLabelText('New main preview'), png('cover2.png'))
    await user.click(within(section).getByLabelText('What changed'))
    await user.paste('New cover')
    await user.click(within(section).getByRole('button', { name: 'Publish update' }))
    expect(await screen.findByText("Only the template's creator can publish a new version of it.")).toBeInTheDocument()
    expect(fake.removals.flatMap((r) => r.paths)).toEqual(fake.uploads.map((u) => u.path))
  })

  it('lists the versions so far, newest first', async () => {
    const { options } = setup({
      template_versions: [
        { template_id: 't-mine', version: 2, changelog: 'First fix', file_changed: true, previews_changed: false, file_name: 'plan-v2.zip', created_at: '2026-11-20T10:00:00Z' },
        { template_id: 't-mine', version: 3, changelog: 'New screenshots', file_changed: false, previews_changed: true, created_at: '2026-11-27T10:00:00Z' },
        { template_id: 't-planner', version: 2, changelog: 'Not mine', file_changed: true, previews_changed: false, created_at: '2026-11-27T10:00:00Z' },
      ],
    })
    renderApp('/dashboard/templates/edit/t-mine', options)
    const history = await screen.findByRole('list', { name: 'Version history' })
    const items = within(history).getAllByRole('listitem')
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('Version 3'),
      expect.stringContaining('Version 2'),
    ])
    expect(items[0]).toHaveTextContent('New screenshots')
    expect(items[0]).toHaveTextContent('New previews')
    expect(items[1]).toHaveTextContent('New file: plan-v2.zip')
  })

  it('shows "Updated on" and the latest line on the template page', async () => {
    const { options } = setup({
      template_versions: [
        { template_id: 't-mine', version: 2, changelog: 'First fix', created_at: '2026-11-20T10:00:00Z' },
        { template_id: 't-mine', version: 3, changelog: 'New screenshots', created_at: '2026-11-27T10:00:00Z' },
      ],
    })
    renderApp('/template/t-mine', options)
    const note = await screen.findByTestId('version-note')
    expect(note).toHaveTextContent('Updated on Nov 27, 2026')
    expect(note).toHaveTextContent('Version 3')
    expect(note).toHaveTextContent('New screenshots')
    expect(note).not.toHaveTextContent('First fix')
  })

  it('says nothing of updates on the page of a template at its first version', async () => {
    const { options } = setup({ template_versions: [] })
    renderApp('/template/t-mine', options)
    await screen.findByRole('heading', { level: 1, name: 'Calm Planner' })
    expect(screen.queryByTestId('version-note')).not.toBeInTheDocument()
  })
})
