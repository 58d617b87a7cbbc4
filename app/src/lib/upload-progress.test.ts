// The progress bar's words and the memory that lets an upload resume.
import { beforeEach, describe, expect, it } from 'vitest'
import { formatBytes, nextProgress, percentOf, progressText, secondsLeft } from './upload-progress'
import { forgetUploadPath, recallUploadPath, rememberUploadPath, UPLOAD_MEMORY_MS } from './upload-memory'
import { retryable } from './resumable-upload'

const MB = 1024 * 1024

describe('upload progress', () => {
  it('tells bytes, percent and time left at the rate measured since the run started', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(300 * 1024)).toBe('300 KB')
    expect(formatBytes(8.5 * MB)).toBe('8.5 MB')
    let p = nextProgress(null, { sent: MB, total: 8 * MB }, 10_000)
    expect(secondsLeft(p)).toBeNull() // nothing measured yet
    expect(progressText(p)).toBe('1.0 MB of 8.0 MB · 12%')
    p = nextProgress(p, { sent: 3 * MB, total: 8 * MB }, 14_000) // 2 MB in 4 s: 0.5 MB/s
    expect(secondsLeft(p)).toBe(10)
    expect(progressText(p)).toBe('3.0 MB of 8.0 MB · 37% · about 10 s left')
    expect(percentOf({ sent: 8 * MB, total: 8 * MB })).toBe(100)
    expect(progressText(nextProgress(p, { sent: 8 * MB, total: 8 * MB }, 20_000))).toBe('8.0 MB of 8.0 MB · 100% · finishing')
  })

  it('starts a new rate base when a resume reports less than before', () => {
    const before = nextProgress(nextProgress(null, { sent: 0, total: 8 * MB }, 0), { sent: 4 * MB, total: 8 * MB }, 4000)
    const resumed = nextProgress(before, { sent: 3 * MB, total: 8 * MB }, 9000)
    expect(resumed.baseSent).toBe(3 * MB)
    expect(resumed.baseAt).toBe(9000)
    expect(secondsLeft(resumed)).toBeNull()
  })
})

describe('upload memory', () => {
  beforeEach(() => localStorage.clear())
  const file = new File(['x'], 'plan.zip', { lastModified: 1 })

  it('recalls the path per form and file until forgotten or expired', () => {
    rememberUploadPath('u:templates:files:new', file, 'u/files/1-a/plan.zip', 1000)
    expect(recallUploadPath('u:templates:files:new', file, 2000)).toBe('u/files/1-a/plan.zip')
    // Another form, or another file of the same name, is not this upload.
    expect(recallUploadPath('u:templates:files:draft:d1', file, 2000)).toBeNull()
    expect(recallUploadPath('u:templates:files:new', new File(['xy'], 'plan.zip', { lastModified: 1 }), 2000)).toBeNull()
    expect(recallUploadPath('u:templates:files:new', file, 1000 + UPLOAD_MEMORY_MS)).toBeNull()
    forgetUploadPath('u:templates:files:new', file, 2000)
    expect(recallUploadPath('u:templates:files:new', file, 2000)).toBeNull()
  })

  it('survives unreadable storage', () => {
    localStorage.setItem('plinth.resumable-uploads', '{not json')
    expect(recallUploadPath('s', file)).toBeNull()
    rememberUploadPath('s', file, 'p')
    expect(recallUploadPath('s', file)).toBe('p')
  })
})

describe('retries', () => {
  const answer = (status: number, body = '') => ({ originalResponse: { getStatus: () => status, getBody: () => body } })
  it('retries what waiting can cure, never a refusal', () => {
    expect(retryable(new Error('network'))).toBe(true)
    expect(retryable(answer(502))).toBe(true)
    expect(retryable(answer(409, 'Upload-Offset conflict'))).toBe(true)
    expect(retryable(answer(423))).toBe(true)
    expect(retryable(answer(400, 'The resource already exists'))).toBe(false)
    expect(retryable(answer(403, 'new row violates row-level security policy'))).toBe(false)
    expect(retryable(answer(413, 'Maximum size exceeded'))).toBe(false)
  })
})
