// supabase.storage.from(bucket).* from the unmodified client against
// /storage/v1, on the marketplace's buckets and policies.
import { beforeAll, describe, expect, it } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import { anonClient, browserClient, serviceClient, sql, uniqueEmail } from './support/context'

// A 1x1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

let user: SupabaseClient
let uid: string

beforeAll(async () => {
  user = browserClient()
  const email = uniqueEmail('storage')
  await user.auth.signUp({ email, password: 'a-good-password' })
  await sql('update auth.users set email_confirmed_at = now() where email = $1', [email])
  const { data, error } = await user.auth.signInWithPassword({ email, password: 'a-good-password' })
  expect(error).toBeNull()
  uid = data.user!.id
})

describe('storage', () => {
  it('uploads to the user\'s own folder, refuses a duplicate without upsert, replaces with upsert', async () => {
    const avatars = user.storage.from('avatars')
    const path = `${uid}/avatar.png`
    const first = await avatars.upload(path, PNG, { contentType: 'image/png', cacheControl: '3600' })
    expect(first.error).toBeNull()
    expect(first.data?.path).toBe(path)

    const again = await avatars.upload(path, PNG, { contentType: 'image/png' })
    expect(again.error?.message).toBe('The resource already exists')

    const bigger = Buffer.concat([PNG, Buffer.alloc(10)])
    const replaced = await avatars.upload(path, bigger, { contentType: 'image/png', upsert: true })
    expect(replaced.error).toBeNull()
    const downloaded = await avatars.download(path)
    expect(downloaded.error).toBeNull()
    expect(Buffer.from(await downloaded.data!.arrayBuffer()).equals(bigger)).toBe(true)
  })

  it('refuses uploads outside the user\'s folder, by visitors, and of the wrong type', async () => {
    const elsewhere = await user.storage.from('avatars').upload('someone-else/a.png', PNG, { contentType: 'image/png' })
    expect(elsewhere.error).not.toBeNull()
    const visitor = await anonClient().storage.from('avatars').upload(`${uid}/b.png`, PNG, { contentType: 'image/png' })
    expect(visitor.error).not.toBeNull()
    const text = await user.storage.from('avatars').upload(`${uid}/notes.txt`, Buffer.from('hello'), { contentType: 'text/plain' })
    expect(text.error).not.toBeNull()
  })

  it('serves public URLs to anyone, with caching headers', async () => {
    const path = `${uid}/previews/cover.png`
    expect((await user.storage.from('templates').upload(path, PNG, { contentType: 'image/png', cacheControl: '3600' })).error).toBeNull()
    const { data } = anonClient().storage.from('templates').getPublicUrl(path)
    expect(data.publicUrl).toContain(`/storage/v1/object/public/templates/${path}`)
    const response = await fetch(data.publicUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(response.headers.get('cache-control')).toContain('3600')
    expect(Buffer.from(await response.arrayBuffer()).equals(PNG)).toBe(true)
    const etag = response.headers.get('etag')!
    const cached = await fetch(data.publicUrl, { headers: { 'if-none-match': etag } })
    expect(cached.status).toBe(304)
  })

  it('lists a folder, signs URLs and removes objects', async () => {
    const templates = user.storage.from('templates')
    for (const name of ['b.zip', 'a.zip']) {
      const { error } = await templates.upload(`${uid}/files/${name}`, Buffer.from(name), { contentType: 'application/zip' })
      expect(error).toBeNull()
    }
    const listed = await templates.list(`${uid}/files`)
    expect(listed.error).toBeNull()
    expect(listed.data?.map((o) => o.name)).toEqual(['a.zip', 'b.zip'])
    const root = await templates.list(uid)
    expect(root.data?.map((o) => o.name)).toEqual(expect.arrayContaining(['files', 'previews']))

    const signed = await templates.createSignedUrl(`${uid}/files/a.zip`, 60)
    expect(signed.error).toBeNull()
    const fetched = await fetch(signed.data!.signedUrl)
    expect(fetched.status).toBe(200)
    expect(await fetched.text()).toBe('a.zip')
    const tampered = await fetch(signed.data!.signedUrl.replace(/token=[^&]+/, 'token=forged'))
    expect(tampered.status).toBeGreaterThanOrEqual(400)

    const removed = await templates.remove([`${uid}/files/a.zip`, `${uid}/files/b.zip`])
    expect(removed.error).toBeNull()
    expect(removed.data?.length).toBe(2)
    expect((await templates.list(`${uid}/files`)).data).toEqual([])
    const gone = await templates.download(`${uid}/files/a.zip`)
    expect(gone.error).not.toBeNull()
  })
})

// Bodies, headers and answers as the platform's storage server has them
// (issue 43): a bucket of the suite's own, written with the service key.
describe('storage as the platform answers', () => {
  const bucket = `wire-${Date.now().toString(36)}`
  const files = () => serviceClient().storage.from(bucket)
  const claims = (url: string) => {
    const token = new URL(url).searchParams.get('token')!
    return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { iat: number; exp: number }
  }

  beforeAll(async () => {
    expect((await serviceClient().storage.createBucket(bucket, { public: true })).error).toBeNull()
    for (const name of ['a.txt', 'b.txt', 'folder1/c.txt', 'folder1/sub/d.txt', 'z.txt']) {
      expect((await files().upload(name, Buffer.from(name), { contentType: 'text/plain' })).error).toBeNull()
    }
  })

  it('takes expiresIn and list numbers sent as strings as numbers', async () => {
    const one = await files().createSignedUrl('a.txt', '60' as any)
    expect(one.error).toBeNull()
    const { iat, exp } = claims(one.data!.signedUrl)
    expect(exp - iat).toBe(60)
    expect(await (await fetch(one.data!.signedUrl)).text()).toBe('a.txt')
    const many = await files().createSignedUrls(['a.txt', 'b.txt'], '120' as any)
    expect(many.error).toBeNull()
    for (const entry of many.data!) {
      const { iat, exp } = claims(entry.signedUrl!)
      expect(exp - iat).toBe(120)
    }
    const listed = await files().list('', { limit: '1' as any, offset: '1' as any, sortBy: { column: 'name', order: 'asc' } })
    expect(listed.error).toBeNull()
    expect(listed.data!.map((o) => o.name)).toEqual(['b.txt'])
    const named = await files().createSignedUrl('a.txt', '60' as any, { download: 'report.txt' })
    const response = await fetch(named.data!.signedUrl)
    expect(response.headers.get('content-disposition')).toBe("attachment; filename=report.txt; filename*=UTF-8''report.txt")
    // What is no number stays a clear 400 in storage's shape.
    const refused = await files().createSignedUrl('a.txt', 'soon' as any)
    expect(refused.data).toBeNull()
    expect(refused.error?.message).toBe('body/expiresIn must be integer')
    expect((refused.error as unknown as { statusCode: string }).statusCode).toBe('400')
  })

  it('names a ?download attachment as the platform writes it, and nothing more', async () => {
    const cases: [string | true, string][] = [
      ['report.txt', "attachment; filename=report.txt; filename*=UTF-8''report.txt"],
      ['My Notes (v2).txt', "attachment; filename=My%20Notes%20(v2).txt; filename*=UTF-8''My%20Notes%20(v2).txt"],
      ['"quoted" résumé.txt', "attachment; filename=%22quoted%22%20r%C3%A9sum%C3%A9.txt; filename*=UTF-8''%22quoted%22%20r%C3%A9sum%C3%A9.txt"],
      [true, 'attachment;'],
      // the attack: a header of its own, a parameter of its own
      ['a.txt\r\nSet-Cookie: stolen=1', "attachment; filename=a.txt%0D%0ASet-Cookie%3A%20stolen%3D1; filename*=UTF-8''a.txt%0D%0ASet-Cookie%3A%20stolen%3D1"],
      ['x"; filename="evil.html', "attachment; filename=x%22%3B%20filename%3D%22evil.html; filename*=UTF-8''x%22%3B%20filename%3D%22evil.html"],
    ]
    // (createSignedUrl's own download option encodes the name twice; the
    // signed URL is given the name here as a browser link would carry it)
    const signed = await files().createSignedUrl('a.txt', 60)
    expect(signed.error).toBeNull()
    for (const [download, expected] of cases) {
      const name = download === true ? '' : encodeURIComponent(download)
      const { publicUrl } = files().getPublicUrl('a.txt', { download }).data
      for (const address of [`${signed.data!.signedUrl}&download=${name}`, publicUrl]) {
        const response = await fetch(address)
        expect(response.status).toBe(200)
        expect(response.headers.get('content-disposition')).toBe(expected)
        expect(response.headers.get('set-cookie')).toBeNull()
        expect(await response.text()).toBe('a.txt')
      }
    }
  })

  it('lists with listV2 as the platform does: keyed folders and objects', async () => {
    const page = await files().listV2({ prefix: '', with_delimiter: true })
    expect(page.error).toBeNull()
    expect(page.data!.hasNext).toBe(false)
    expect(page.data!.folders).toEqual([
      { key: 'folder1', name: 'folder1/', id: null, metadata: null, created_at: null, updated_at: null, last_accessed_at: null },
    ])
    expect(page.data!.objects.map((o) => [o.key, o.name])).toEqual([
      ['a.txt', 'a.txt'],
      ['b.txt', 'b.txt'],
      ['z.txt', 'z.txt'],
    ])
    for (const object of page.data!.objects) {
      expect(Object.keys(object).sort()).toEqual(['created_at', 'id', 'key', 'last_accessed_at', 'metadata', 'name', 'updated_at'])
    }
    const inside = await files().listV2({ prefix: 'folder1/', with_delimiter: true })
    expect(inside.data!.folders.map((f) => [f.key, f.name])).toEqual([['sub', 'folder1/sub/']])
    expect(inside.data!.objects.map((o) => [o.key, o.name])).toEqual([['c.txt', 'folder1/c.txt']])
    // a folder last on a page is named without its slash
    const first = await files().listV2({ prefix: '', with_delimiter: true, limit: 3 })
    expect(first.data!.hasNext).toBe(true)
    // (the client's types know no nextCursorKey; the platform sends it)
    expect((first.data as unknown as { nextCursorKey: string }).nextCursorKey).toBe('folder1')
    // by time, folders still fold
    const byTime = await files().listV2({ with_delimiter: true, sortBy: { column: 'created_at', order: 'asc' } })
    expect(byTime.data!.folders.map((f) => f.name)).toEqual(['folder1/'])
    expect((byTime.data!.folders[0] as unknown as { created_at: string }).created_at).toBeTruthy()
  })

  it('answers bucket calls with exactly the platform fields', async () => {
    const got = await serviceClient().storage.getBucket(bucket)
    expect(got.error).toBeNull()
    expect(Object.keys(got.data!).sort()).toEqual([
      'allowed_mime_types', 'created_at', 'file_size_limit', 'id', 'name', 'owner', 'public', 'updated_at',
    ])
    expect(got.data).toMatchObject({ id: bucket, name: bucket, owner: '', public: true, file_size_limit: null, allowed_mime_types: null })
    const listed = await serviceClient().storage.listBuckets()
    expect(listed.error).toBeNull()
    const mine = listed.data!.find((b) => b.id === bucket)!
    expect(Object.keys(mine).sort()).toEqual([
      'allowed_mime_types', 'created_at', 'file_size_limit', 'id', 'name', 'owner', 'public', 'type', 'updated_at',
    ])
    expect(mine.type).toBe('STANDARD')
    const named = `${bucket}-named`
    const created = await serviceClient().storage.createBucket(named)
    expect(created.error).toBeNull()
    expect(created.data).toEqual({ name: named })
  })
})
