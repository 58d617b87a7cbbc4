import { describe, expect, it } from 'vitest'
import { IMAGE_ACCEPT, isAcceptedImage, isAcceptedTemplateFile } from './file-types'

const file = (type: string) => new File(['x'], 'f', { type })

describe('file types the buckets take', () => {
  it('takes raster images and refuses SVG and other types as images', () => {
    expect(isAcceptedImage(file('image/png'))).toBe(true)
    expect(isAcceptedImage(file('image/webp'))).toBe(true)
    expect(isAcceptedImage(file('image/svg+xml'))).toBe(false)
    expect(isAcceptedImage(file('text/html'))).toBe(false)
    expect(isAcceptedImage(file(''))).toBe(false)
    expect(IMAGE_ACCEPT).not.toContain('svg')
  })

  it('takes archives, documents and unknown types as template files, never pages or script', () => {
    expect(isAcceptedTemplateFile(file('application/zip'))).toBe(true)
    expect(isAcceptedTemplateFile(file('application/pdf'))).toBe(true)
    expect(isAcceptedTemplateFile(file(''))).toBe(true)
    for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'text/javascript', 'application/xml'])
      expect(isAcceptedTemplateFile(file(type)), type).toBe(false)
  })
})
