// The upload screen sends template files over 6 MB as resumable (TUS)
// uploads through tus-js-client, smaller ones through storage.upload.
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'
import type { FakeOptions } from '@/testing/fake-supabase'

interface TusOptions {
  endpoint: string
  chunkSize: number
  headers: Record<string, string>
  metadata: Record<string, string>
  onSuccess: () => void
  onError: (error: unknown) => void
}

const tus = vi.hoisted(() => ({
  created: [] as Array<{ file: File; options: TusOptions }>,
  /** Bodies of errors the next uploads answer with (as the server's 409). */
  failures: [] as string[],
}))

vi.mock('tus-js-client', () => ({
  Upload: class {
    constructor(
      public file: File,
      public options: TusOptions,
    ) {
      tus.created.push({ file, options })
    }
    start() {
      const failure = tus.failures.shift()
      queueMicrotask(() =>
        failure
          ? this.options.onError(Object.assign(new Error('tus: unexpected response'), { originalResponse: { getBody: () => failure } }))
          : this.options.onSuccess(),
      )
    }
  },
}))

const PUBLIC = 'http://localhost:3000/storage/v1/object/public/templates/'
const MB = 1024 * 1024

function png(name: string): File {
  return new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' })
}

function options(): FakeOptions {
  return { tables: marketplace({}), signedInAs: MAYA, users: [MAYA] }
}

async function submitFreeTemplate(file: File) {
  const user = userEvent.setup({ applyAccept: false })
  const rendered = renderApp('/upload', options())
  await user.click(await screen.findByRole('textbox', { name: 'Title' }))
  await user.paste('Focus Planner')
  await user.click(screen.getByRole('textbox', { name: 'Short description' }))
  await user.paste('Plan deep work.')
  await user.click(screen.getByRole('textbox', { name: 'Detailed description' }))
  await user.paste('## About\n\nDetails')
  await waitFor(() => expect(screen.getByRole('option', { name: 'Business' })).toBeInTheDocument())
  await user.selectOptions(screen.getByRole('combobox', { name: 'Category' }), 'Business')
  await user.click(screen.getByRole('tab', { name: 'Visuals' }))
  await user.upload(screen.getByLabelText('Main preview image'), png('cover.png'))
  await user.upload(screen.getByLabelText(/^Template file/, { selector: 'input' }), file)
  await user.click(screen.getByRole('tab', { name: 'Features' }))
  await user.type(screen.getByRole('textbox', { name: 'Tags' }), 'planner{Enter}')
  await user.click(screen.getByRole('tab', { name: 'Pricing' }))
  const price = screen.getByRole('spinbutton', { name: 'Price (USD)' })
  await user.clear(price)
  await user.paste('0')
  await user.click(screen.getByRole('tab', { name: 'Actions' }))
  await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
  await waitFor(() => expect(here(rendered.router)).toBe('/dashboard/templates'))
  return rendered
}

beforeEach(() => {
  tus.created.length = 0
  tus.failures.length = 0
})

describe('resumable uploads of large template files', () => {
  it('sends a file over 6 MB with tus-js-client in 6 MB chunks, as the signed-in user, and stores its URL', async () => {
    const big = new File([new Uint8Array(7 * MB)], 'big planner.zip', { type: 'application/zip' })
    const { fake } = await submitFreeTemplate(big)
    expect(tus.created).toHaveLength(1)
    const { file, options: sent } = tus.created[0]
    expect(file).toBe(big)
    expect(sent.endpoint).toBe('http://localhost:3000/storage/v1/upload/resumable')
    expect(sent.chunkSize).toBe(6 * MB)
    expect(sent.headers).toMatchObject({ authorization: 'Bearer token-u-maya', 'x-upsert': 'false' })
    expect(sent.metadata).toMatchObject({ bucketName: 'templates', contentType: 'application/zip', cacheControl: '3600' })
    expect(sent.metadata.objectName).toMatch(/^u-maya\/files\/\d{13}-[a-z0-9]+\/big planner\.zip$/)
    // only the preview went through storage.upload
    expect(fake.uploads.map((u) => u.path)).not.toContain(sent.metadata.objectName)
    expect(fake.uploads).toHaveLength(1)
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      template_file_url: PUBLIC + sent.metadata.objectName,
    })
  })

  it('tries another name when the resumable upload answers that the name is taken', async () => {
    tus.failures.push('The resource already exists')
    const big = new File([new Uint8Array(6 * MB + 1)], 'big.zip', { type: 'application/zip' })
    await submitFreeTemplate(big)
    expect(tus.created).toHaveLength(2)
    expect(tus.created[0].options.metadata.objectName).not.toBe(tus.created[1].options.metadata.objectName)
  })

  it('keeps storage.upload for files up to 6 MB', async () => {
    const small = new File([new Uint8Array(6 * MB)], 'small.zip', { type: 'application/zip' })
    const { fake } = await submitFreeTemplate(small)
    expect(tus.created).toHaveLength(0)
    expect(fake.uploads.map((u) => u.path).some((p) => p.endsWith('/small.zip'))).toBe(true)
  })
})
