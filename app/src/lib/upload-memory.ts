// Which storage path an unfinished resumable upload of a file was going to,
// kept in localStorage for as long as the server keeps an unfinished upload
// (an hour): choosing the same file again for the same form (after a reload,
// or after a submit that failed when the connection stayed away) reuses the
// path, and ./resumable-upload then resumes the upload stored under it.
//
// A file is known by its name, size and modification time (what the browser
// tells of a chosen file); `scope` names the form and the folder, e.g.
// `{user id}:templates:files:new`.

const KEY = 'plinth.resumable-uploads'
/** The server's TUS upload expiry (crates/storage `tus_url_expiry`, one hour). */
export const UPLOAD_MEMORY_MS = 60 * 60 * 1000

type Entries = Record<string, { path: string; at: number }>

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage
  } catch {
    return null
  }
}

function read(now: number): Entries {
  const raw = storage()?.getItem(KEY)
  if (!raw) return {}
  try {
    const parsed = JSON.parse(raw) as unknown
    if (!parsed || typeof parsed !== 'object') return {}
    const fresh: Entries = {}
    for (const [k, v] of Object.entries(parsed as Entries)) {
      if (v && typeof v.path === 'string' && typeof v.at === 'number' && now - v.at < UPLOAD_MEMORY_MS) fresh[k] = v
    }
    return fresh
  } catch {
    return {}
  }
}

function write(entries: Entries) {
  try {
    storage()?.setItem(KEY, JSON.stringify(entries))
  } catch {
    // Full or refused storage: the upload simply starts over next time.
  }
}

export function fileKey(scope: string, file: File): string {
  return [scope, file.name, file.size, file.lastModified].join('|')
}

/** The path an unfinished upload of `file` in `scope` was going to, if one is remembered. */
export function recallUploadPath(scope: string, file: File, now: number = Date.now()): string | null {
  return read(now)[fileKey(scope, file)]?.path ?? null
}

/** Remembers that `file` in `scope` is being uploaded to `path`. */
export function rememberUploadPath(scope: string, file: File, path: string, now: number = Date.now()) {
  const entries = read(now)
  entries[fileKey(scope, file)] = { path, at: now }
  write(entries)
}

/** Forgets `file`'s upload in `scope`: it completed, was cancelled, or its path was taken. */
export function forgetUploadPath(scope: string, file: File, now: number = Date.now()) {
  const entries = read(now)
  delete entries[fileKey(scope, file)]
  write(entries)
}
