// Browser walks of a large upload on a slow line (issue 44, item 2): a new
// creator submits a template with an 8.5 MB file while the browser is
// throttled to about 400 KB/s through the DevTools protocol.
//
// The first walk cuts the network (offline) for 4 s in the middle of the
// upload and restores it. It asserts that the progress bar had advanced
// before the drop, that the upload went on from where the server had got to
// (one creation request only, and a PATCH at a non-zero Upload-Offset after
// the drop), and that the template was submitted with a file of exactly the
// bytes chosen.
//
// The second walk reloads the page in the middle of an upload, fills the
// form again and chooses the same file: the upload resumes (no second
// creation; its first PATCH after the reload at a non-zero offset).
//
// The third walk cancels an upload under way: the tus upload is terminated
// on the server (DELETE answered 204), nothing is submitted, and the form
// stays.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiVisitor, expect, expectNoSidewaysPan, signIn } from '../lib.mjs'

const MB = 1024 * 1024
const THROTTLE = { latency: 40, downloadThroughput: 400 * 1024, uploadThroughput: 400 * 1024 }

/** Signs a new creator up (API) and in (UI), and fills the upload form up to the Actions tab. */
async function fillForm(page, url, viewport, { title, file }) {
  const email = `upload-resume-${viewport}-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`
  const creator = await apiVisitor(url, email)
  await signIn(page, url, email, 'a-long-password-1', '/upload')
  await page.waitForURL((u) => u.pathname === '/upload')
  await fillFields(page, { title, file })
  return creator
}

/** Fills the upload form (as signed in, on /upload) up to the Actions tab. */
async function fillFields(page, { title, file }) {
  await page.getByRole('textbox', { name: 'Title' }).fill(title)
  await page.getByRole('textbox', { name: 'Short description' }).fill('A large file on a slow line.')
  const category = page.getByRole('combobox', { name: 'Category' })
  await category.locator('option', { hasText: 'Productivity' }).waitFor({ state: 'attached' })
  await category.selectOption({ label: 'Productivity' })
  await page.getByRole('tab', { name: 'Visuals' }).click()
  await page.locator('#upload-template-file').setInputFiles(file)
  await page.getByTestId('template-file-name').filter({ hasText: file.name ?? file.split('/').pop() }).waitFor()
  await page.getByRole('tab', { name: 'Pricing' }).click()
  await page.getByRole('spinbutton', { name: 'Price (USD)' }).fill('0')
  await page.getByRole('tab', { name: 'Actions' }).click()
}

/** The resumable upload's requests the page sends: method, URL, Upload-Offset, when. */
function watchTus(page) {
  const seen = []
  page.on('request', (request) => {
    if (!request.url().includes('/storage/v1/upload/resumable')) return
    const offset = request.headers()['upload-offset']
    seen.push({ method: request.method(), url: request.url(), offset: offset === undefined ? null : Number(offset), at: Date.now() })
  })
  return seen
}

async function progressValue(page) {
  const bar = page.getByRole('progressbar')
  if ((await bar.count()) === 0) return null
  return Number(await bar.getAttribute('aria-valuenow'))
}

export const walks = [
  {
    name: 'upload-resume: an 8.5 MB upload survives a 4 s network drop and resumes, with progress',
    async run(page, { url, viewport }) {
      const bytes = randomBytes(Math.round(8.5 * MB))
      const title = `Resume ${viewport} ${Date.now() % 1_000_000}`
      const file = { name: 'large-planner.zip', mimeType: 'application/zip', buffer: bytes }
      const creator = await fillForm(page, url, viewport, { title, file })
      const tus = watchTus(page)
      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...THROTTLE })

      await page.getByRole('button', { name: 'Submit for Review' }).click()
      const bar = page.getByRole('progressbar', { name: 'Uploading large-planner.zip' })
      await bar.waitFor()
      // Let about a third go up, then drop the network.
      let before = 0
      for (let i = 0; i < 200 && before < 35; i++) {
        before = (await progressValue(page)) ?? 0
        await page.waitForTimeout(100)
      }
      expect(before >= 35 && before < 90, `the bar advanced before the drop (aria-valuenow ${before})`)
      const text = await page.getByTestId('upload-progress-text').textContent()
      expect(/MB of 8\.5 MB · \d+%/.test(text ?? ''), `the bar tells bytes and percent: ${text}`)
      expect(/left|finishing/.test(text ?? ''), `the bar tells the time left: ${text}`)
      expect(/Uploading\.\.\. \d+%/.test((await page.getByRole('button', { name: /Uploading/ }).textContent()) ?? ''), 'the button says how far the upload is')
      if (viewport === 'phone') await expectNoSidewaysPan(page, 'the upload form with its progress bar')

      const droppedAt = Date.now()
      await cdp.send('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
      await page.getByText('Connection lost. The upload continues when you are back online.').waitFor()
      await page.waitForTimeout(4000)
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...THROTTLE })

      // The upload finishes and the template is submitted.
      await page.waitForURL((u) => u.pathname === '/dashboard/templates', { timeout: 90_000 })
      await page.getByText('Your template has been submitted for approval.').waitFor()
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })

      const created = tus.filter((r) => r.method === 'POST')
      expect(created.length === 1, `one upload was created, not restarted: ${JSON.stringify(tus.map((r) => [r.method, r.offset]))}`)
      const after = tus.filter((r) => r.method === 'PATCH' && r.at > droppedAt + 3900)
      expect(after.length > 0, `PATCHes went on after the drop: ${JSON.stringify(tus.map((r) => [r.method, r.offset]))}`)
      expect(after[0].offset > 0, `the first PATCH after the drop resumed at ${after[0].offset}, not at 0`)
      const beforeDrop = tus.filter((r) => r.method === 'PATCH' && r.at < droppedAt)
      expect(beforeDrop.length > 0, 'bytes went up before the drop')

      // The pending row names a file with exactly the bytes chosen.
      const rows = await creator.get(`templates_pending_approval?select=template_file_url&title=eq.${encodeURIComponent(title)}`)
      expect(rows.length === 1 && rows[0].template_file_url, `one pending row with a file: ${JSON.stringify(rows)}`)
      const stored = await fetch(rows[0].template_file_url)
      expect(stored.ok, `the stored file answers ${stored.status}`)
      const got = Buffer.from(await stored.arrayBuffer())
      const hash = (b) => createHash('sha256').update(b).digest('hex')
      expect(got.length === bytes.length && hash(got) === hash(bytes), `the stored file has the chosen bytes (${got.length} of ${bytes.length})`)
    },
  },
  {
    name: 'upload-resume: a reload in the middle of an upload resumes it when the same file is chosen again',
    async run(page, { url, viewport }) {
      const bytes = randomBytes(4 * MB)
      // A file on disk keeps its modification time, as a person's file does.
      const file = join(mkdtempSync(join(tmpdir(), 'upload-resume-')), 'reloaded-planner.zip')
      writeFileSync(file, bytes)
      const title = `Reload ${viewport} ${Date.now() % 1_000_000}`
      const creator = await fillForm(page, url, viewport, { title, file })
      const tus = watchTus(page)
      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...THROTTLE })
      await page.getByRole('button', { name: 'Submit for Review' }).click()
      await page.getByRole('progressbar').waitFor()
      let sent = 0
      for (let i = 0; i < 150 && sent < 30; i++) {
        sent = (await progressValue(page)) ?? 0
        await page.waitForTimeout(100)
      }
      expect(sent >= 30, `the upload got going before the reload (${sent}%)`)
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
      const reloadedAt = Date.now()
      await page.reload()
      await page.getByRole('textbox', { name: 'Title' }).waitFor()
      await fillFields(page, { title, file })
      await page.getByRole('button', { name: 'Submit for Review' }).click()
      await page.waitForURL((u) => u.pathname === '/dashboard/templates', { timeout: 60_000 })
      await page.getByText('Your template has been submitted for approval.').waitFor()
      const trail = JSON.stringify(tus.map((r) => [r.method, r.offset]))
      expect(tus.filter((r) => r.method === 'POST').length === 1, `the upload was created once, then resumed: ${trail}`)
      const resumed = tus.filter((r) => r.method === 'PATCH' && r.at > reloadedAt)
      expect(resumed.length > 0 && resumed[0].offset > 0, `the first PATCH after the reload resumed at a non-zero offset: ${trail}`)
      const rows = await creator.get(`templates_pending_approval?select=template_file_url&title=eq.${encodeURIComponent(title)}`)
      expect(rows.length === 1, `one pending row: ${JSON.stringify(rows)}`)
      const got = Buffer.from(await (await fetch(rows[0].template_file_url)).arrayBuffer())
      expect(got.equals(bytes), `the stored file has the chosen bytes (${got.length} of ${bytes.length})`)
    },
  },
  {
    name: 'upload-resume: Cancel stops an upload under way and drops it on the server',
    async run(page, { url, viewport }) {
      const title = `Cancel ${viewport} ${Date.now() % 1_000_000}`
      const file = { name: 'cancelled.zip', mimeType: 'application/zip', buffer: randomBytes(4 * MB) }
      const creator = await fillForm(page, url, viewport, { title, file })
      const tus = watchTus(page)
      const terminated = page.waitForResponse((r) => r.request().method() === 'DELETE' && r.url().includes('/upload/resumable/'))
      const cdp = await page.context().newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...THROTTLE })

      await page.getByRole('button', { name: 'Submit for Review' }).click()
      await page.getByRole('progressbar', { name: 'Uploading cancelled.zip' }).waitFor()
      for (let i = 0; i < 100 && ((await progressValue(page)) ?? 0) < 5; i++) await page.waitForTimeout(100)
      await page.getByRole('button', { name: 'Cancel upload' }).click()
      await page.getByText('Upload cancelled. Nothing was saved.').waitFor()
      const deleted = await terminated
      expect(deleted.status() === 204, `the upload was terminated on the server (DELETE answered ${deleted.status()})`)
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
      expect(new URL(page.url()).pathname === '/upload', 'the form stays')
      expect((await page.getByRole('progressbar').count()) === 0, 'the progress bar is gone')
      expect(await page.getByRole('button', { name: 'Submit for Review' }).isEnabled(), 'Submit can be pressed again')
      expect(tus.some((r) => r.method === 'POST'), 'the upload had started')
      const rows = await creator.get(`templates_pending_approval?select=id&title=eq.${encodeURIComponent(title)}`)
      expect(rows.length === 0, `nothing was submitted: ${JSON.stringify(rows)}`)
    },
  },
]
