// Browser walk of a new version of a published template (issue 44, item 6).
//
// A new creator publishes a PAID template (file in the private bucket,
// submitted through REST, approved by the demo admin), and a new buyer pays
// for it (simulated payment) and downloads version one. The creator then
// opens Dashboard → My Templates → Published → Edit and publishes an update:
// a new file, a new main preview and a changelog line. The walk asserts:
//
// * the template page says "Updated on ..." with the line, and shows the new preview;
// * the buyer, who bought it before, now downloads the NEW file's bytes, from
//   their library's download page (/download/{orderId}) and from the
//   secure link of their purchase (validate-download with its token);
// * the new file stays private: in the bucket 'template-files', out of the
//   public template row, its public URL refused;
// * nobody but the creator can add a version: the buyer's and a visitor's
//   add_template_version calls are refused and change nothing.
//
// A second walk does the same for a FREE template through the API (the
// version published with add_template_version as its creator): the free
// order had remembered the old file's public URL; after the update the
// buyer's /download/{orderId} page gives the new file. It also checks that
// a new preview written with another host is kept as this site's path, that
// a preview the creator did not upload is refused, and that an update that
// changes nothing is refused.
//
// On the phone (at 375 px) the first walk also checks the My Templates tab strip (issue
// 44, Low): every tab is fully visible, "All" included, with nothing cut off.
import { randomBytes } from 'node:crypto'
import { apiAccount, apiVisitor, confirmSimulated, expect, signIn, logout } from '../lib.mjs'

// A valid 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')


async function anonKeyOf(url) {
  return (await (await fetch(`${url}/_/app-config.json`)).json()).anonKey
}

/** Stores `body` at `bucket/path` as the holder of `token`. */
async function store(url, token, bucket, path, body, type) {
  const anonKey = await anonKeyOf(url)
  const r = await fetch(`${url}/storage/v1/object/${bucket}/${path}`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': type, 'x-upsert': 'false' },
    body,
  })
  expect(r.ok, `upload ${bucket}/${path}: ${r.status} ${await r.text()}`)
}

/** Calls an RPC or a function as `token` (the anon key when null): status and body. */
async function call(url, token, path, payload) {
  const anonKey = await anonKeyOf(url)
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${token ?? anonKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  })
  const text = await r.text()
  return { status: r.status, body: text ? JSON.parse(text) : null }
}

async function textOf(link, base) {
  const r = await fetch(new URL(link, base))
  expect(r.ok, `the download ${link} answered ${r.status}`)
  return r.text()
}

export const walks = [
  {
    name: 'versions: a creator replaces the file and preview of a published template; the buyer gets the new file',
    async run(page, { url, viewport }) {
      const stamp = `${Date.now() % 1_000_000}-${randomBytes(2).toString('hex')}`
      const title = `Versioned ${stamp}`
      const creatorEmail = `versions-creator-${viewport}-${stamp}@example.com`
      const buyerEmail = `versions-buyer-${viewport}-${stamp}@example.com`
      const creator = await apiVisitor(url, creatorEmail)
      const buyer = await apiVisitor(url, buyerEmail)
      const admin = await apiAccount(url, 'admin@demo.plinth.dev')

      // Version one: a paid template with its file in the private bucket.
      const v1 = `version one ${stamp}`
      await store(url, creator.token, 'template-files', `${creator.id}/files/v1/planner.txt`, v1, 'text/plain')
      await store(url, creator.token, 'templates', `${creator.id}/previews/first.png`, PNG, 'image/png')
      const [category] = await creator.get('categories?select=id&limit=1')
      await creator.rest('POST', 'templates_pending_approval', {
        creator_id: creator.id,
        title,
        description: 'A template that gets a second version.',
        about_template: 'About it.',
        price: 3,
        price_in_cents: 300,
        category_id: category.id,
        preview_image_url: `${url}/storage/v1/object/public/templates/${creator.id}/previews/first.png`,
        template_file_url: `template-files/${creator.id}/files/v1/planner.txt`,
        status: 'Pending Approval',
      })
      const [pending] = await creator.get(`templates_pending_approval?title=eq.${encodeURIComponent(title)}&select=id`)
      const approved = await call(url, admin.token, '/rest/v1/rpc/admin_approve_template', { pending_template_id: pending.id })
      expect(approved.status === 200, `approval: ${approved.status} ${JSON.stringify(approved.body)}`)
      const templateId = approved.body

      // The buyer pays, signed in, and gets version one.
      const intent = await call(url, buyer.token, '/functions/v1/create-payment-intent', { templateId, buyerEmail, buyerId: buyer.id })
      expect(intent.status === 200, `payment intent: ${intent.status} ${JSON.stringify(intent.body)}`)
      await confirmSimulated(url, intent.body)
      const secure = () => call(url, null, '/functions/v1/validate-download', { orderId: intent.body.orderId, token: intent.body.downloadToken })
      const before = await secure()
      expect(before.status === 200 && before.body.downloadUrl, `validate-download: ${before.status} ${JSON.stringify(before.body)}`)
      expect((await textOf(before.body.downloadUrl, url)) === v1, 'the buyer downloads version one')

      // Nobody but the creator adds a version.
      const refusedBuyer = await call(url, buyer.token, '/rest/v1/rpc/add_template_version', {
        template_id: templateId,
        changelog: 'Not mine to change',
        new_preview_image_url: `${url}/storage/v1/object/public/templates/${creator.id}/previews/first.png`,
        new_preview_images: [],
      })
      expect(refusedBuyer.status === 403 && refusedBuyer.body?.code === '42501', `a buyer is refused: ${refusedBuyer.status} ${JSON.stringify(refusedBuyer.body)}`)
      const refusedVisitor = await call(url, null, '/rest/v1/rpc/add_template_version', { template_id: templateId, changelog: 'x', new_preview_images: [] })
      expect([401, 403].includes(refusedVisitor.status), `a visitor is refused: ${refusedVisitor.status} ${JSON.stringify(refusedVisitor.body)}`)
      // The creator may not hand out someone else's file either.
      const buyerFile = `${buyer.id}/files/x/other.txt`
      await store(url, buyer.token, 'template-files', buyerFile, 'not the creator’s', 'text/plain')
      const foreign = await call(url, creator.token, '/rest/v1/rpc/add_template_version', {
        template_id: templateId,
        changelog: 'Borrowed file',
        new_file: `template-files/${buyerFile}`,
      })
      expect(foreign.status === 403 && foreign.body?.code === '42501', `another user's file is refused: ${foreign.status} ${JSON.stringify(foreign.body)}`)
      expect((await admin.get(`template_versions?template_id=eq.${templateId}&select=version`)).length === 0, 'no version was added by the refused calls')

      // The creator publishes version two through the edit screen.
      if (viewport === 'phone') await page.setViewportSize({ width: 375, height: 812 })
      await signIn(page, url, creatorEmail, 'a-long-password-1', '/dashboard/templates')
      await page.waitForURL((u) => u.pathname === '/dashboard/templates')
      const tabs = page.getByRole('tablist', { name: 'Template status' })
      await tabs.getByRole('tab', { name: /^All/ }).waitFor()
      if (viewport === 'phone') {
        // Every tab fully inside the strip and the viewport (issue 44, Low).
        const strip = await tabs.boundingBox()
        for (const tab of await tabs.getByRole('tab').all()) {
          const box = await tab.boundingBox()
          const name = (await tab.textContent())?.trim()
          expect(box && box.x >= strip.x - 0.5 && box.x + box.width <= strip.x + strip.width + 0.5 && box.x + box.width <= 375, `the tab ${name} is fully visible at 375 px (${JSON.stringify(box)} in ${JSON.stringify(strip)})`)
        }
      }
      await tabs.getByRole('tab', { name: /^Published/ }).click()
      await page.getByRole('article', { name: title }).getByRole('link', { name: 'Edit' }).click()
      await page.waitForURL((u) => u.pathname === `/dashboard/templates/edit/${templateId}`)
      const update = page.getByRole('region', { name: 'Publish an update' })
      await update.waitFor()
      const v2 = `version two ${stamp}: the weekly view fixed`
      await update.getByLabel('New template file').setInputFiles({ name: 'planner-v2.txt', mimeType: 'text/plain', buffer: Buffer.from(v2) })
      await update.getByLabel('New main preview').setInputFiles({ name: 'second.png', mimeType: 'image/png', buffer: PNG })
      const line = `Fixed the broken weekly view (${stamp}).`
      await update.getByLabel('What changed').fill(line)
      await update.getByRole('button', { name: 'Publish update' }).click()
      await page.getByText('Version 2 published. Buyers now get the new version.').waitFor()
      await update.getByRole('list', { name: 'Version history' }).getByText(line).waitFor()

      // What the database now says: a version, the new file private.
      const versions = await buyer.get(`template_versions?template_id=eq.${templateId}&select=version,changelog,file_changed,previews_changed,file_name`)
      expect(versions.length === 1 && versions[0].version === 2 && versions[0].changelog === line && versions[0].file_changed && versions[0].previews_changed && versions[0].file_name === 'planner-v2.txt', `versions ${JSON.stringify(versions)}`)
      const [row] = await buyer.get(`templates?id=eq.${templateId}&select=template_file_url,preview_image_url`)
      expect(row.template_file_url === null, `the public row carries no file: ${row.template_file_url}`)
      expect(row.preview_image_url.includes(`/templates/${creator.id}/previews/`) && !row.preview_image_url.endsWith('first.png'), `the new preview is the template's: ${row.preview_image_url}`)
      const [kept] = await creator.get(`paid_template_links?template_id=eq.${templateId}&select=template_file_url`)
      expect(kept.template_file_url.startsWith(`template-files/${creator.id}/files/`) && kept.template_file_url.endsWith('/planner-v2.txt'), `the new file is private: ${kept.template_file_url}`)
      const publicCopy = await fetch(`${url}/storage/v1/object/public/${kept.template_file_url}`)
      expect(!publicCopy.ok, `the private file has no public URL (${publicCopy.status})`)

      // The template page says so.
      await page.goto(`${url}/template/${templateId}`)
      const note = page.getByTestId('version-note')
      await note.waitFor()
      const said = (await note.textContent()) ?? ''
      expect(/Updated on [A-Z][a-z]{2} \d{1,2}, \d{4}/.test(said) && said.includes(line), `the page says when and what: ${said}`)
      await logout(page, viewport)

      // The buyer's download is the new file: through the secure link...
      const after = await secure()
      expect(after.status === 200, `validate-download after the update: ${after.status}`)
      expect((await textOf(after.body.downloadUrl, url)) === v2, 'the secure link gives the new file')
      // ...and through their library's download page.
      await signIn(page, url, buyerEmail, 'a-long-password-1', '/dashboard/library')
      await page.waitForURL((u) => u.pathname === '/dashboard/library')
      await page.getByRole('list', { name: 'Your templates' }).getByRole('link', { name: new RegExp(title) }).click()
      await page.waitForURL((u) => u.pathname === `/download/${intent.body.orderId}`)
      const link = page.getByRole('link', { name: 'Download File' })
      await link.waitFor()
      expect((await textOf(await link.getAttribute('href'), url)) === v2, 'the library download gives the new file')
    },
  },
  {
    name: 'versions: the buyers of a free template download its new file',
    async run(page, { url, viewport }) {
      const stamp = `${Date.now() % 1_000_000}-${randomBytes(2).toString('hex')}`
      const title = `Free versioned ${stamp}`
      const buyerEmail = `versions-free-buyer-${viewport}-${stamp}@example.com`
      const creator = await apiVisitor(url, `versions-free-creator-${viewport}-${stamp}@example.com`)
      const buyer = await apiVisitor(url, buyerEmail)
      const admin = await apiAccount(url, 'admin@demo.plinth.dev')
      const v1 = `free one ${stamp}`
      await store(url, creator.token, 'templates', `${creator.id}/files/v1/free.txt`, v1, 'text/plain')
      const [category] = await creator.get('categories?select=id&limit=1')
      await creator.rest('POST', 'templates_pending_approval', {
        creator_id: creator.id,
        title,
        description: 'A free template that gets a second version.',
        price: 0,
        price_in_cents: 0,
        category_id: category.id,
        template_file_url: `${url}/storage/v1/object/public/templates/${creator.id}/files/v1/free.txt`,
        status: 'Pending Approval',
      })
      const [pending] = await creator.get(`templates_pending_approval?title=eq.${encodeURIComponent(title)}&select=id`)
      const templateId = (await call(url, admin.token, '/rest/v1/rpc/admin_approve_template', { pending_template_id: pending.id })).body
      const order = await call(url, buyer.token, '/functions/v1/create-free-order', { product_id: templateId, buyer_email: buyerEmail })
      expect(order.status === 200, `free order: ${order.status} ${JSON.stringify(order.body)}`)
      const [remembered] = await buyer.get(`orders?id=eq.${order.body.orderId}&select=download_url`)
      expect(remembered.download_url?.endsWith('/v1/free.txt'), `the free order remembers the file: ${remembered.download_url}`)

      const v2 = `free two ${stamp}`
      await store(url, creator.token, 'templates', `${creator.id}/files/v2/free.txt`, v2, 'text/plain')
      const added = await call(url, creator.token, '/rest/v1/rpc/add_template_version', {
        template_id: templateId,
        changelog: 'Typos fixed',
        new_file: `templates/${creator.id}/files/v2/free.txt`,
      })
      expect(added.status === 200 && added.body.version === 2, `the creator adds version 2: ${added.status} ${JSON.stringify(added.body)}`)
      // A preview is the creator's own upload, kept as this site's path whatever host was written.
      await store(url, creator.token, 'templates', `${creator.id}/previews/cover.png`, PNG, 'image/png')
      const elsewhere = await call(url, creator.token, '/rest/v1/rpc/add_template_version', {
        template_id: templateId,
        changelog: 'New cover',
        new_preview_image_url: `https://tracker.example/storage/v1/object/public/templates/${creator.id}/previews/cover.png`,
      })
      expect(elsewhere.status === 200 && elsewhere.body.version === 3, `a new cover: ${elsewhere.status} ${JSON.stringify(elsewhere.body)}`)
      const [shown] = await buyer.get(`templates?id=eq.${templateId}&select=preview_image_url`)
      expect(shown.preview_image_url === `/storage/v1/object/public/templates/${creator.id}/previews/cover.png`, `the cover is this site's: ${shown.preview_image_url}`)
      const missing = await call(url, creator.token, '/rest/v1/rpc/add_template_version', {
        template_id: templateId,
        changelog: 'Not uploaded',
        new_preview_images: [`templates/${creator.id}/previews/never-uploaded.png`],
      })
      expect(missing.status === 403, `a preview that is not the creator's upload is refused: ${missing.status} ${JSON.stringify(missing.body)}`)
      const again = await call(url, creator.token, '/rest/v1/rpc/add_template_version', { template_id: templateId, changelog: 'Nothing new' })
      expect(again.status === 400 && /Nothing to update/.test(again.body?.message), `an update that changes nothing is refused: ${again.status} ${JSON.stringify(again.body)}`)

      await signIn(page, url, buyerEmail, 'a-long-password-1', `/download/${order.body.orderId}`)
      await page.waitForURL((u) => u.pathname === `/download/${order.body.orderId}`)
      const link = page.getByRole('link', { name: 'Download File' })
      await link.waitFor()
      expect((await textOf(await link.getAttribute('href'), url)) === v2, 'the order page gives the new file')
      await page.goto(`${url}/template/${templateId}`)
      await page.getByTestId('version-note').filter({ hasText: 'New cover' }).waitFor()
    },
  },
]
