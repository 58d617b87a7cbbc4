import { afterEach, describe, expect, it, vi } from 'vitest'
import { browser } from './browser'
import { downloadTarget, followDownload, isStoredFile } from './download'
import { UNSAFE_LINK } from './safe-link'

const here = window.location.origin

describe('download links', () => {
  afterEach(() => vi.restoreAllMocks())

  it('tells a file of this site’s storage from other web links', () => {
    expect(isStoredFile(`${here}/storage/v1/object/sign/template-files/u/kit.zip?token=t&download=kit.zip`)).toBe(true)
    expect(isStoredFile(`${here}/demo/files/planner.md`)).toBe(false)
    // Another origin's storage path is somebody else's: a web link.
    expect(isStoredFile('https://evil.example/storage/v1/object/sign/x/y')).toBe(false)
    expect(isStoredFile('not a url')).toBe(false)
    expect(downloadTarget('/demo/files/planner.md')).toEqual({ href: `${here}/demo/files/planner.md`, kind: 'web' })
  })

  it('saves a stored file in place and opens a web link in a new tab', () => {
    const download = vi.spyOn(browser, 'download').mockImplementation(() => {})
    const openTab = vi.spyOn(browser, 'openTab').mockImplementation(() => {})
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {})
    const file = `${here}/storage/v1/object/sign/template-files/u/kit.zip?token=t&download=kit.zip`
    expect(followDownload(file)).toEqual({ href: file, kind: 'file' })
    expect(download).toHaveBeenCalledWith(file)
    expect(followDownload('https://workspace.example/t/1').kind).toBe('web')
    expect(openTab).toHaveBeenCalledWith('https://workspace.example/t/1')
    expect(assign).not.toHaveBeenCalled()
  })

  it('follows nothing that is not a web link', () => {
    const download = vi.spyOn(browser, 'download').mockImplementation(() => {})
    const openTab = vi.spyOn(browser, 'openTab').mockImplementation(() => {})
    for (const link of ['javascript:alert(1)', 'data:text/html,<b>x</b>', '//evil.example/x', 'ftp://x.example/f', null, 42]) {
      expect(() => followDownload(link)).toThrow(UNSAFE_LINK)
    }
    expect(download).not.toHaveBeenCalled()
    expect(openTab).not.toHaveBeenCalled()
  })

  it('clicks a temporary download link and removes it, and opens tabs without an opener', () => {
    const clicked: HTMLAnchorElement[] = []
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this)
    })
    browser.download(`${here}/storage/v1/object/sign/b/kit.zip?token=t`)
    expect(clicked).toHaveLength(1)
    expect(clicked[0].hasAttribute('download')).toBe(true)
    expect(clicked[0].isConnected).toBe(false)
    const open = vi.spyOn(window, 'open').mockImplementation(() => null)
    browser.openTab('https://workspace.example/t/1')
    expect(open).toHaveBeenCalledWith('https://workspace.example/t/1', '_blank', 'noopener,noreferrer')
  })
})
