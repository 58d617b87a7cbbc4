// Storage: a bucket made, a file uploaded into a folder, browsed with the
// breadcrumbs, downloaded, its public and signed URLs copied (and fetched
// as anyone would), the bucket edited, the file and the bucket deleted.
import { expect, expectNoSidewaysPan, openSection, screenshot, signIn, toast, unique, waitUntil } from '../lib.mjs'

const CONTENT = 'Hello from the console walk.\n'

export const walks = [
  {
    name: 'storage',
    async run(page, ctx) {
      await signIn(page, ctx)
      await openSection(page, ctx, 'Storage')
      const bucket = unique(`e2e-${ctx.viewport}`).toLowerCase()

      await page.getByRole('button', { name: 'Create bucket' }).click()
      const dialog = page.getByRole('dialog', { name: 'Create bucket' })
      await dialog.getByLabel('Bucket id').fill(bucket)
      await dialog.getByLabel('Public').check()
      await dialog.getByLabel('File size limit').fill('1MB')
      await dialog.getByLabel('Allowed MIME types').fill('text/plain, image/png')
      await dialog.getByRole('button', { name: 'Create bucket' }).click()
      await toast(page, 'Bucket created')
      await page.getByRole('heading', { level: 2, name: new RegExp(`^${bucket}`) }).waitFor()
      await page.getByText('MIME types: text/plain, image/png').waitFor()

      // A folder and a file in it.
      await page.getByRole('button', { name: 'New folder' }).click()
      await page.getByRole('dialog', { name: 'New folder' }).getByLabel('Folder name').fill('docs')
      await page.getByRole('dialog', { name: 'New folder' }).getByRole('button', { name: 'Open folder' }).click()
      await page.getByText('This folder is empty').waitFor()
      await page.locator('#upload-file').setInputFiles({ name: 'readme.txt', mimeType: 'text/plain', buffer: Buffer.from(CONTENT) })
      await toast(page, 'File uploaded')
      const panel = page.getByRole('region', { name: 'docs/readme.txt' })
      await panel.waitFor()

      // Browse: to the top through the breadcrumbs, into the folder again.
      await page.getByRole('navigation', { name: 'Folder path' }).getByRole('button', { name: bucket }).click()
      await page.getByRole('button', { name: 'Open folder docs' }).click()
      await page.getByRole('button', { name: 'File readme.txt' }).click()
      await panel.waitFor()
      await expectNoSidewaysPan(page, 'a bucket')
      await screenshot(page, 'storage')

      // Download.
      const [download] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Download' }).click()])
      expect(download.suggestedFilename() === 'readme.txt', `downloaded ${download.suggestedFilename()}`)

      // The public URL, as anyone fetches it.
      await panel.getByRole('button', { name: 'Copy public URL' }).click()
      const publicUrl = await panel.getByLabel('Public URL').inputValue()
      expect(publicUrl === `${ctx.url}/storage/v1/object/public/${bucket}/docs/readme.txt`, `the public URL: ${publicUrl}`)
      let fetched = await fetch(publicUrl)
      expect(fetched.ok && (await fetched.text()) === CONTENT, `the public URL answered ${fetched.status}`)

      // The signed URL: the node's own /storage/v1, not the console's proxy.
      await panel.getByRole('button', { name: 'Copy signed URL' }).click()
      const field = panel.getByLabel('Signed URL (valid 1 hour)')
      await field.waitFor()
      const signed = await field.inputValue()
      expect(signed.startsWith(`${ctx.url}/storage/v1/object/sign/${bucket}/docs/readme.txt?token=`) && !signed.includes('/_/console'), `the signed URL: ${signed}`)
      fetched = await fetch(signed)
      expect(fetched.ok && (await fetched.text()) === CONTENT, `the signed URL answered ${fetched.status}`)
      if (ctx.viewport === 'desktop') {
        const clipboard = await page.evaluate(() => navigator.clipboard.readText()).catch(() => null)
        expect(clipboard === null || clipboard === signed, `the clipboard holds ${clipboard}`)
      }

      // Private now: edit the bucket.
      await page.getByRole('button', { name: 'Edit bucket' }).click()
      const edit = page.getByRole('dialog', { name: `Edit bucket ${bucket}` })
      await edit.getByLabel('Public').uncheck()
      await edit.getByRole('button', { name: 'Save bucket' }).click()
      await toast(page, 'Bucket saved')
      await page.getByRole('heading', { level: 2, name: `${bucket} private` }).waitFor()

      // Delete the file, then the bucket.
      await page.getByRole('button', { name: 'File readme.txt' }).click()
      await panel.getByRole('button', { name: 'Delete' }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete file' }).click()
      await toast(page, 'File deleted')
      await page.getByText('This folder is empty').waitFor()
      await page.getByRole('button', { name: 'Delete bucket' }).click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Empty and delete' }).click()
      await toast(page, 'Bucket deleted')
      await waitUntil(async () => (await page.getByRole('navigation', { name: 'Buckets' }).getByRole('button', { name: new RegExp(`^${bucket}`) }).count()) === 0, 'the bucket to go')
    },
  },
]
