import { describe, expect, it } from 'vitest'
import { crumbs, objectPath, parseMimeTypes, parseSizeLimit, publicObjectUrl, publicSignedUrl } from './urls'

describe('storage URLs', () => {
  it('turns a signed URL of the console proxy into the node’s public one', () => {
    expect(
      publicSignedUrl('http://127.0.0.1:8000/_/console/api/storage/v1/object/sign/docs/a%20b/readme.txt?token=abc.def'),
    ).toBe('http://127.0.0.1:8000/storage/v1/object/sign/docs/a%20b/readme.txt?token=abc.def')
    // already public: unchanged
    expect(publicSignedUrl('https://node.example/storage/v1/object/sign/b/x?token=t')).toBe('https://node.example/storage/v1/object/sign/b/x?token=t')
    // a relative answer is made absolute on the given origin
    expect(publicSignedUrl('/_/console/api/storage/v1/object/sign/b/x?token=t', 'https://node.example')).toBe(
      'https://node.example/storage/v1/object/sign/b/x?token=t',
    )
  })

  it('builds a public object URL with each path segment encoded', () => {
    expect(publicObjectUrl('https://node.example', 'avatars', 'u 1/pic#1.png')).toBe('https://node.example/storage/v1/object/public/avatars/u%201/pic%231.png')
  })

  it('splits a prefix into breadcrumbs and joins object paths', () => {
    expect(crumbs('')).toEqual([])
    expect(crumbs('docs/2024/')).toEqual([
      { name: 'docs', prefix: 'docs' },
      { name: '2024', prefix: 'docs/2024' },
    ])
    expect(objectPath('', 'a.txt')).toBe('a.txt')
    expect(objectPath('docs/', 'a.txt')).toBe('docs/a.txt')
  })

  it('reads bucket limits as typed', () => {
    expect(parseSizeLimit('')).toBeNull()
    expect(parseSizeLimit('1048576')).toBe(1048576)
    expect(parseSizeLimit('5 mb')).toBe('5MB')
    expect(() => parseSizeLimit('lots')).toThrow(/File size limit/)
    expect(parseMimeTypes('image/png, image/jpeg  text/plain')).toEqual(['image/png', 'image/jpeg', 'text/plain'])
    expect(parseMimeTypes(' ')).toBeNull()
  })
})
