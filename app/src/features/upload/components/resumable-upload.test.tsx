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
  retryDelays: number[]
  onShouldRetry: (error: unknown) => boolean
  headers: Record<string, string>
  metadata: Record<string, string>
  fingerprint: () => Promise<string>
  storeFingerprintForResuming: boolean
  onProgress: (sent: number, total: number) => void
  onSuccess: () => void
  onError: (error: unknown) => void
}

/** How the next upload behaves: answer at once (ok / a server message), or wait to be driven by the test. */
type Script = { kind: 'ok' } | { kind: 'fail'; body: string } | { kind: 'manual' }

const tus = vi.hoisted(() => ({
  created: [] as Array<{ file: File; options: TusOptions; upload: unknown }>,
  scripts: [] as Script[],
  /** Upload URLs "stored" by fingerprint, as tus-js-client's urlStorage would. */
  stored: new Map<string, string>(),
  resumed: [] as string[],
  aborted: [] as boolean[],
}))

vi.mock('tus-js-client', () => ({
  Upload: class {
    url: string | null = null
    constructor(
      public file: File,
      public options: TusOptions,
    ) {
      tus.created.push({ file, options, upload: this })
    }
    async findPreviousUploads() {
      const key = await this.options.fingerprint()
      const url = tus.stored.get(key)
      return url ? [{ uploadUrl: url, creationTime: new Date().toISOString(), urlStorageKey: key, size: this.file.size, metadata: {} }] : []
    }
    resumeFromPreviousUpload(previous: { uploadUrl: string }) {
      this.url = previous.uploadUrl
      tus.resumed.push(previous.uploadUrl)
    }
    async start() {
      const script = tus.scripts.shift() ?? { kind: 'ok' }
      const key = await this.options.fingerprint()
      if (!this.url) {
        this.url = `http://localhost:3000/storage/v1/upload/resumable/${tus.created.length}`
        tus.stored.set(key, this.url)
      }
      if (script.kind === 'ok') {
        tus.stored.delete(key)
        this.options.onSuccess()
      } else if (script.kind === 'fail') {
        this.options.onError(Object.assign(new Error('tus: unexpected response'), { originalResponse: { getBody: () => script.body, getStatus: () => 400 } }))
      }
    }
    abort(terminate: boolean) {
      tus.aborted.push(terminate)
      return Promise.resolve()
    }
  },
}))

/** The tus upload the test drives (a 'manual' script): report progress, fail as a network error does, or finish. */
function driven(index: number) {
  const { options } = tus.created[index]
  return {
    progress: (sent: number, total: number) => options.onProgress(sent, total),
    dropped: () => options.onError(Object.assign(new Error('tus: failed to upload chunk'), { originalRequest: {}, originalResponse: null })),
    succeed: () => options.onSuccess(),
  }
}

const PUBLIC = 'http://localhost:3000/storage/v1/object/public/templates/'
const MB = 1024 * 1024

function png(name: string): File {
  return new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], name, { type: 'image/png' })
}

function options(): FakeOptions {
  return { tables: marketplace({}), signedInAs: MAYA, users: [MAYA] }
}

async function fillFreeTemplate(file: File) {
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
  return { ...rendered, user }
}

async function submitFreeTemplate(file: File) {
  const rendered = await fillFreeTemplate(file)
  await rendered.user.click(screen.getByRole('button', { name: 'Submit for Review' }))
  await waitFor(() => expect(here(rendered.router)).toBe('/dashboard/templates'))
  return rendered
}

beforeEach(() => {
  tus.created.length = 0
  tus.scripts.length = 0
  tus.stored.clear()
  tus.resumed.length = 0
  tus.aborted.length = 0
  localStorage.clear()
})

// Each test drives the whole form: allow for a machine busy with other work.
describe('resumable uploads of large template files', { timeout: 15_000 }, () => {
  it('sends a file over 1 MB with tus-js-client in 2 MB chunks, as the signed-in user, and stores its URL', async () => {
    const big = new File([new Uint8Array(7 * MB)], 'big planner.zip', { type: 'application/zip' })
    const { fake } = await submitFreeTemplate(big)
    expect(tus.created).toHaveLength(1)
    const { file, options: sent } = tus.created[0]
    expect(file).toBe(big)
    expect(sent.endpoint).toBe('http://localhost:3000/storage/v1/upload/resumable')
    expect(sent.chunkSize).toBe(2 * MB)
    // Retries outlast a few seconds without a network, and the upload URL is kept for resuming.
    expect(sent.retryDelays.reduce((a, b) => a + b, 0)).toBeGreaterThan(30_000)
    expect(sent.storeFingerprintForResuming).toBe(true)
    expect(await sent.fingerprint()).toContain(sent.metadata.objectName)
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
    tus.scripts.push({ kind: 'fail', body: 'The resource already exists' })
    const big = new File([new Uint8Array(MB + 1)], 'big.zip', { type: 'application/zip' })
    await submitFreeTemplate(big)
    expect(tus.created).toHaveLength(2)
    expect(tus.created[0].options.metadata.objectName).not.toBe(tus.created[1].options.metadata.objectName)
  })

  it('keeps storage.upload for files up to 1 MB', async () => {
    const small = new File([new Uint8Array(MB)], 'small.zip', { type: 'application/zip' })
    const { fake } = await submitFreeTemplate(small)
    expect(tus.created).toHaveLength(0)
    expect(fake.uploads.map((u) => u.path).some((p) => p.endsWith('/small.zip'))).toBe(true)
  })

  it('shows the progress (bar, bytes, percent, time left) and the upload in the button while the file goes up', async () => {
    tus.scripts.push({ kind: 'manual' })
    const big = new File([new Uint8Array(8 * MB)], 'big.zip', { type: 'application/zip' })
    const { user, router } = await fillFreeTemplate(big)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(tus.created).toHaveLength(1))
    const upload = driven(0)
    upload.progress(2 * MB, 8 * MB)
    const bar = await screen.findByRole('progressbar', { name: 'Uploading big.zip' })
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '25'))
    expect(screen.getByTestId('upload-progress-text')).toHaveTextContent('2.0 MB of 8.0 MB · 25%')
    expect(screen.getByRole('button', { name: 'Uploading... 25%' })).toBeDisabled()
    // A second later, another 2 MB: 4 MB left at 2 MB/s.
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + 1000)
    upload.progress(4 * MB, 8 * MB)
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '50'))
    expect(screen.getByTestId('upload-progress-text')).toHaveTextContent('4.0 MB of 8.0 MB · 50% · about 2 s left')
    vi.restoreAllMocks()
    upload.succeed()
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
  })

  it('keeps an upload the network interrupted and resumes it, at the same path, when submitted again', async () => {
    tus.scripts.push({ kind: 'manual' })
    const big = new File([new Uint8Array(8 * MB)], 'big.zip', { type: 'application/zip', lastModified: 1700000000000 })
    const { user, router, fake } = await fillFreeTemplate(big)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(tus.created).toHaveLength(1))
    const first = tus.created[0].options
    // Network errors are retried whatever navigator.onLine says; refusals are not.
    expect(first.onShouldRetry(Object.assign(new Error('x'), { originalResponse: null }))).toBe(true)
    expect(first.onShouldRetry({ originalResponse: { getStatus: () => 503, getBody: () => '' } })).toBe(true)
    expect(first.onShouldRetry({ originalResponse: { getStatus: () => 403, getBody: () => 'denied' } })).toBe(false)
    driven(0).progress(3 * MB, 8 * MB)
    await screen.findByRole('progressbar')
    driven(0).dropped()
    expect(await screen.findByText('The connection dropped and the upload stopped at 37%. Try again: it resumes where it stopped.')).toBeInTheDocument()
    expect(here(router)).toBe('/upload')
    expect(tus.aborted).toEqual([]) // nothing terminated: the server keeps what arrived
    expect(fake.callsTo('templates_pending_approval', 'insert')).toHaveLength(0)

    // Submitting again uploads the same file to the same path, resuming the stored upload URL.
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(tus.created).toHaveLength(2)
    expect(tus.created[1].options.metadata.objectName).toBe(first.metadata.objectName)
    expect(tus.resumed).toEqual(['http://localhost:3000/storage/v1/upload/resumable/1'])
    expect(fake.callsTo('templates_pending_approval', 'insert')[0].payload).toMatchObject({
      template_file_url: PUBLIC + first.metadata.objectName,
    })
    // Done: nothing is remembered for resuming any more.
    expect(localStorage.getItem('plinth.resumable-uploads')).toBe('{}')
  })

  it('cancels the upload: tus terminates it, nothing is submitted, and the next try starts afresh', async () => {
    tus.scripts.push({ kind: 'manual' })
    const big = new File([new Uint8Array(4 * MB)], 'big.zip', { type: 'application/zip' })
    const { user, router, fake } = await fillFreeTemplate(big)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(tus.created).toHaveLength(1))
    driven(0).progress(MB, 4 * MB)
    await user.click(await screen.findByRole('button', { name: 'Cancel upload' }))
    expect(await screen.findByText('Upload cancelled. Nothing was saved.')).toBeInTheDocument()
    expect(tus.aborted).toEqual([true])
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Submit for Review' })).toBeEnabled()
    expect(here(router)).toBe('/upload')
    expect(fake.callsTo('templates_pending_approval', 'insert')).toHaveLength(0)
    // The preview stored for the cancelled submit is removed again.
    expect(fake.removals.flatMap((r) => r.paths).some((p) => p.includes("/previews/"))).toBe(true)
    await user.click(screen.getByRole('button', { name: 'Submit for Review' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates'))
    expect(tus.created[1].options.metadata.objectName).not.toBe(tus.created[0].options.metadata.objectName)
  })
})
