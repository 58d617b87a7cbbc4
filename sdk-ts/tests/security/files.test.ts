// Security: files, through the unmodified supabase-js. Item 3: a stored file
// never acts as a page of the app's origin (nosniff, a sandboxing CSP,
// attachments for active types), and the marketplace's buckets take only the
// types the spec needs. Item 14: a body over a service's limit is an error in
// that service's own shape, which the client surfaces as such.
import { describe, expect, it } from 'vitest'
import { FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js'
import { browserClient, plinthUrl, serviceClient, sql, uniqueEmail } from '../support/context'

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)
const HTML = '<!doctype html><script>localStorage.setItem("pwned", "1")</script>'
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>document.title = "pwned"</script></svg>'
/** Over every service's 2 MiB body limit. */
const OVER = 3 * 1024 * 1024

/** A confirmed user, signed in on a browser-like client. */
async function signedIn(tag: string): Promise<{ supabase: SupabaseClient; id: string }> {
  const supabase = browserClient()
  const email = uniqueEmail(tag)
  expect((await supabase.auth.signUp({ email, password: 'a-good-password' })).error).toBeNull()
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await supabase.auth.signInWithPassword({ email, password: 'a-good-password' })
  expect(error).toBeNull()
  return { supabase, id: data.user!.id }
}

/** The `statusCode` of a storage error (storage-js keeps the body's). */
function statusCode(error: unknown): string | undefined {
  return (error as { statusCode?: string } | null)?.statusCode
}

describe('security: files', () => {
  it('item 03: the marketplace buckets refuse HTML, SVG and a type that smuggles one', async () => {
    const { supabase, id } = await signedIn('files-types')
    const refused: [string, string, string, string][] = [
      ['avatars', `${id}/me.svg`, 'image/svg+xml', SVG],
      ['avatars', `${id}/me.png`, 'image/png, text/html', HTML],
      ['avatars', `${id}/me2.png`, 'image/png; x=y, text/html', HTML],
      ['templates', `${id}/previews/p.svg`, 'image/svg+xml', SVG],
      ['templates', `${id}/files/t.html`, 'text/html', HTML],
      ['template-files', `${id}/files/t.html`, 'Text/HTML; charset=utf-8', HTML],
    ]
    for (const [bucket, path, contentType, body] of refused) {
      // A string goes raw (the type in the header) ...
      const raw = await supabase.storage.from(bucket).upload(path, body, { contentType })
      expect(statusCode(raw.error), `${bucket}/${path} as ${contentType}`).toBe('415')
    }
    // ... a File as a form (the type in the file part), as the app uploads.
    for (const [bucket, path, type] of [
      ['avatars', `${id}/f.svg`, 'image/svg+xml'],
      ['templates', `${id}/files/f.html`, 'text/html'],
    ]) {
      const file = new File([SVG], 'f', { type })
      const form = await supabase.storage.from(bucket).upload(path, file)
      expect(statusCode(form.error), `${bucket}/${path} as a ${type} File`).toBe('415')
    }
    // What the app uploads still goes in.
    expect((await supabase.storage.from('avatars').upload(`${id}/me.png`, PNG, { contentType: 'image/png' })).error).toBeNull()
    const zip = new File(['PK\u0005\u0006'], 't.zip', { type: 'application/zip' })
    expect((await supabase.storage.from('templates').upload(`${id}/files/t.zip`, zip)).error).toBeNull()
  })

  it('item 03: a stored page is served sandboxed and as an attachment, an image inline', async () => {
    const service = serviceClient()
    const bucket = `sec-files-${Date.now().toString(36)}`
    expect((await service.storage.createBucket(bucket, { public: true })).error).toBeNull()
    const files = service.storage.from(bucket)
    expect((await files.upload('page.html', HTML, { contentType: 'text/html' })).error).toBeNull()
    expect((await files.upload('drawing.svg', SVG, { contentType: 'image/svg+xml' })).error).toBeNull()
    expect((await files.upload('dot.png', PNG, { contentType: 'image/png' })).error).toBeNull()

    for (const name of ['page.html', 'drawing.svg']) {
      const signed = await files.createSignedUrl(name, 60)
      for (const address of [files.getPublicUrl(name).data.publicUrl, signed.data!.signedUrl]) {
        const response = await fetch(address)
        expect(response.status).toBe(200)
        expect(response.headers.get('x-content-type-options')).toBe('nosniff')
        expect(response.headers.get('content-security-policy')).toContain('sandbox')
        expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="/)
      }
      // The client still gets the bytes.
      const { data } = await files.download(name)
      expect(await data!.text()).toBe(name.endsWith('.html') ? HTML : SVG)
    }
    const image = await fetch(files.getPublicUrl('dot.png').data.publicUrl)
    expect(image.headers.get('content-type')).toBe('image/png')
    expect(image.headers.get('content-disposition')).toBeNull()
    expect(image.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect((await files.remove(['page.html', 'drawing.svg', 'dot.png'])).error).toBeNull()
    expect((await service.storage.deleteBucket(bucket)).error).toBeNull()
  })

  it('item 03: the app origin answers with nosniff', async () => {
    const response = await fetch(`${plinthUrl}/health`)
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('item 14: REST answers a body over the limit as a PostgREST error', async () => {
    const { supabase } = await signedIn('files-rest')
    const { error, status } = await supabase
      .from('newsletter_subscribers')
      .insert({ email: `${'a'.repeat(OVER)}@example.com`, name: 'big' })
    expect(status).toBe(413)
    expect(error).toMatchObject({ code: 'PGRST102', message: 'Request body too large' })
    expect(error!.details).toContain('bytes')
  })

  it('item 14: storage answers a body over the limit in its own shape', async () => {
    const { supabase, id } = await signedIn('files-storage')
    const paths = Array.from({ length: 1000 }, (_, i) => `${id}/${'x'.repeat(OVER / 1000)}-${i}`)
    const { error } = await supabase.storage.from('templates').createSignedUrls(paths, 60)
    expect(statusCode(error)).toBe('413')
    expect(error).toMatchObject({ message: 'The request body is larger than 2097152 bytes' })
  })

  it('item 14: a function answers a body over the limit as a function error', async () => {
    const { supabase } = await signedIn('files-functions')
    const { error } = await supabase.functions.invoke('track-template-view', {
      body: { template_id: 'x'.repeat(OVER) },
    })
    expect(error).toBeInstanceOf(FunctionsHttpError)
    const response = (error as FunctionsHttpError).context as Response
    expect(response.status).toBe(413)
    expect(await response.json()).toMatchObject({ error: 'Request body too large (limit 2097152 bytes)' })
  })
})
