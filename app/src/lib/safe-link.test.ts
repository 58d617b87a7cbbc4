import { describe, expect, it } from 'vitest'
import { safeLink } from './safe-link'

const DEV = 'http://localhost:8000/template/t1'
const LIVE = 'https://shop.example/template/t1'

describe('safeLink', () => {
  it('keeps web links and makes site paths absolute', () => {
    expect(safeLink('https://workspace.example/dup/1', LIVE)).toBe('https://workspace.example/dup/1')
    expect(safeLink('HTTPS://workspace.example/dup/1', LIVE)).toBe('https://workspace.example/dup/1')
    expect(safeLink('/demo/files/a.md', LIVE)).toBe('https://shop.example/demo/files/a.md')
    expect(safeLink('http://localhost:8000/storage/v1/object/sign/x?token=t', DEV)).toBe(
      'http://localhost:8000/storage/v1/object/sign/x?token=t',
    )
    expect(safeLink('http://workspace.example/dev', DEV)).toBe('http://workspace.example/dev')
  })

  it('refuses http links elsewhere on an https site', () => {
    expect(safeLink('http://workspace.example/dev', LIVE)).toBeNull()
  })

  it('refuses script, data and other schemes, other hosts by path, and odd characters', () => {
    for (const link of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'javascript://example.com/%0aalert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'ftp://example.com/a.zip',
      '//evil.example/x',
      '/\\evil.example/x',
      'https:///evil.example',
      'https://exa mple.com',
      'template-files/u/files/a.zip',
      '',
      '/',
      null,
      42,
    ]) {
      expect(safeLink(link, DEV), String(link)).toBeNull()
      expect(safeLink(link, LIVE), String(link)).toBeNull()
    }
  })
})
