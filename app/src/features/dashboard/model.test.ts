import { describe, expect, it } from 'vitest'
import { activeTabScroll, averageRating, deleteDescription, editLink, filesByBucket, linesToList, parsePrice, storedFile, tabFromParam } from './model'

describe('dashboard model', () => {
  it('averages only ratings above 0, to one decimal', () => {
    expect(averageRating([4.5, '4.00', 0, null])).toBe(4.3)
    expect(averageRating([3, 4, 4])).toBe(3.7)
    expect(averageRating([0, 0])).toBe(0)
    expect(averageRating([])).toBe(0)
  })

  it('links each kind to its editor', () => {
    expect(editLink({ id: 'a', kind: 'draft' })).toEqual({ to: '/upload?draft=a', label: 'Continue Editing' })
    expect(editLink({ id: 'b', kind: 'published' })).toEqual({ to: '/dashboard/templates/edit/b', label: 'Edit' })
    expect(editLink({ id: 'c', kind: 'rejected' })).toEqual({ to: '/upload?template=c', label: 'Edit' })
    expect(editLink({ id: 'd', kind: 'pending' })).toEqual({ to: '/upload?template=d', label: 'Edit' })
  })

  it('words the delete confirmation, with draft for drafts', () => {
    expect(deleteDescription('draft')).toBe('This action cannot be undone. This will permanently delete your template draft')
    expect(deleteDescription('rejected')).toBe('This action cannot be undone. This will permanently delete your template')
  })

  it('reads the tab of the URL', () => {
    expect(tabFromParam('draft')).toBe('draft')
    expect(tabFromParam('published')).toBe('published')
    expect(tabFromParam('all')).toBeNull()
    expect(tabFromParam(null)).toBeNull()
    expect(tabFromParam('nonsense')).toBeNull()
  })

  it('splits lines, dropping blanks, and parses prices with 0 as fallback', () => {
    expect(linesToList(' a \n\n\tb\n  \n')).toEqual(['a', 'b'])
    expect(parsePrice('12.5')).toBe(12.5)
    expect(parsePrice('')).toBe(0)
    expect(parsePrice('abc')).toBe(0)
    expect(parsePrice('0.005')).toBe(0.01)
  })

  it('finds the bucket and path of stored files from their URLs', () => {
    expect(storedFile('http://h/storage/v1/object/public/templates/u1/previews/a%20b.png?x=1')).toEqual({ bucket: 'templates', path: 'u1/previews/a b.png' })
    expect(storedFile('https://h/storage/v1/object/authenticated/template-files/u1/files/a.zip')).toEqual({ bucket: 'template-files', path: 'u1/files/a.zip' })
    expect(storedFile('template-files/u1/files/a.zip')).toEqual({ bucket: 'template-files', path: 'u1/files/a.zip' })
    expect(storedFile('u1/previews/a.png')).toEqual({ bucket: 'templates', path: 'u1/previews/a.png' })
    expect(storedFile('/demo/study.svg')).toBeNull()
    expect(storedFile('https://elsewhere.example/file.zip')).toBeNull()
    expect(storedFile('')).toBeNull()
    expect(storedFile(null)).toBeNull()
  })

  it('groups a row’s files by bucket, once each, leaving out kept and foreign files', () => {
    const base = 'http://h/storage/v1/object/public'
    const files = filesByBucket(
      {
        preview_image_url: `${base}/templates/u1/previews/a.png`,
        preview_images: [`${base}/templates/u1/previews/a.png`, `${base}/templates/u1/previews/b.png`, `${base}/avatars/u1/me.png`, '/demo/x.svg'],
        template_file_url: 'template-files/u1/files/c.zip',
      },
      [`${base}/templates/u1/previews/b.png`],
    )
    expect([...files]).toEqual([
      ['templates', ['u1/previews/a.png']],
      ['template-files', ['u1/files/c.zip']],
    ])
  })
})

describe('activeTabScroll', () => {
  const list = (scrollLeft: number) => ({ scrollLeft, clientWidth: 300 })
  it('scrolls right so a tab past the right edge is wholly in view', () => {
    expect(activeTabScroll(list(0), { offsetLeft: 380, offsetWidth: 90 })).toBe(380 + 90 + 4 - 300)
  })
  it('scrolls left so a tab before the left edge is wholly in view', () => {
    expect(activeTabScroll(list(200), { offsetLeft: 100, offsetWidth: 60 })).toBe(96)
    expect(activeTabScroll(list(50), { offsetLeft: 2, offsetWidth: 60 })).toBe(0)
  })
  it('leaves a tab already in view where it is', () => {
    expect(activeTabScroll(list(40), { offsetLeft: 120, offsetWidth: 60 })).toBe(40)
  })
})
