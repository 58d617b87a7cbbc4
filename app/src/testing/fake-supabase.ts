// An in-memory stand-in for the SDK client: tables as arrays of rows with the
// query-builder filters the app uses, RPC and function handlers, storage and
// auth. Component tests replace `@/lib/supabase` (the network boundary) with
// it; nothing of the app itself is stubbed.
import { vi } from 'vitest'
import type { PlinthClient } from '@plinth/sdk'
import { FakeMfa, type FakeFactor } from './fake-mfa'
import { FakePasswordAuth } from './fake-password'

export type Row = Record<string, unknown>
export interface FakeError {
  message: string
  code?: string
}
export interface Result {
  data: unknown
  error: FakeError | null
  count?: number | null
}
type Handler = (args: Record<string, unknown>) => Partial<Result> | Promise<Partial<Result>>

export interface FakeUser {
  id: string
  email: string
  password: string
  display_name?: string
  /** MFA factors (seeded into `mfa`, copied). */
  factors?: FakeFactor[]
}

export interface FakeOptions {
  tables?: Record<string, Row[]>
  /** A table (or view) whose every request fails. */
  failing?: Record<string, FakeError>
  rpc?: Record<string, Handler>
  functions?: Record<string, Handler>
  users?: FakeUser[]
  /** Start signed in as this user. */
  signedInAs?: FakeUser
  /**
   * The `/api/...` routes (the SDK's `api.*` wrappers), by path after `/api`,
   * e.g. '/paid-download-confirmation'. Answered through `fetch` on the
   * fake's origin; a path without a handler answers 404.
   */
  api?: Record<string, ApiHandler>
  /** What `GET /_/app-config.json` answers besides `anonKey`. */
  appConfig?: Record<string, unknown>
  /**
   * The `external` map `GET /auth/v1/settings` answers (GitHub and Google
   * enabled unless given), or 'error' for a 500.
   */
  authSettings?: Record<string, boolean> | 'error'
  /**
   * Many-to-one relations for embedded selects, by `{table}.{embedded table}`,
   * where the column is not named `{embedded table without trailing s}_id`.
   */
  relations?: Record<string, { column: string; references?: string }>
  /**
   * Per bucket, how many of the next uploads answer 'The resource already
   * exists' (as storage does for a taken name without upsert).
   */
  uploadConflicts?: Record<string, number>
}

/** An `/api` route of the fake: its status (200 by default) and JSON body. */
export type ApiHandler = (
  body: Record<string, unknown>,
) => { status?: number; body?: unknown } | Promise<{ status?: number; body?: unknown }>

/**
 * A function's refusal as supabase-js reports it (FunctionsHttpError with the
 * Response), so the SDK's typed wrappers see `status` and the `{ error }` body.
 */
export function functionError(status: number, message: string, extra: Record<string, unknown> = {}) {
  return {
    message: 'Edge Function returned a non-2xx status code',
    name: 'FunctionsHttpError',
    context: new Response(JSON.stringify({ error: message, ...extra }), {
      status,
      headers: { 'content-type': 'application/json' },
    }),
  }
}

/**
 * What postgrest-js answers when its fetch failed (offline, refused, reset):
 * the shape a table read gets while the fake is `unreachable`.
 */
export const UNREACHABLE: FakeError & { details: string; hint: string } = {
  message: 'TypeError: Failed to fetch',
  details: '',
  hint: '',
  code: '',
}

export interface RecordedCall {
  table: string
  op: string
  payload?: unknown
  filters: string[]
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0
  if (a === null || a === undefined) return 1
  if (b === null || b === undefined) return -1
  const na = Number(a)
  const nb = Number(b)
  if (typeof a !== 'boolean' && !Number.isNaN(na) && !Number.isNaN(nb) && a !== '' && b !== '') return na - nb
  return String(a).localeCompare(String(b))
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'boolean' || typeof b === 'boolean') return String(a) === String(b)
  return compare(a, b) === 0
}

function likeToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.')
  return new RegExp(`^${escaped}$`, 'i')
}

/** One `column.op.value` condition of an `or=(…)` filter. */
function condition(text: string): (r: Row) => boolean {
  const [column, op, ...rest] = text.split('.')
  const value = rest.join('.')
  switch (op) {
    case 'eq':
      return (r) => same(r[column], value)
    case 'ilike':
      return (r) => likeToRegExp(value).test(String(r[column] ?? ''))
    case 'like':
      return (r) => likeToRegExp(value).test(String(r[column] ?? ''))
    default:
      throw new Error(`fake: unsupported or-condition ${text}`)
  }
}

export class FakeSupabase {
  tables: Record<string, Row[]>
  failing: Record<string, FakeError>
  rpcHandlers: Record<string, Handler>
  functionHandlers: Record<string, Handler>
  users: FakeUser[]
  calls: RecordedCall[] = []
  /**
   * The server cannot be reached (issue 24): every table read or write, RPC
   * and function call fails as a failed fetch does. Set it back to false to
   * see a screen recover.
   */
  unreachable = false
  session: {
    user: { id: string; email: string; user_metadata: Record<string, unknown>; factors?: FakeFactor[] }
    access_token: string
  } | null = null
  listeners = new Set<(event: string, session: unknown) => void>()
  uploads: Array<{ bucket: string; path: string; file: unknown; options: unknown }> = []
  /** Uploads refused by `uploadConflicts` (not in `uploads`). */
  uploadAttempts: Array<{ bucket: string; path: string; file: unknown; options: unknown }> = []
  removals: Array<{ bucket: string; paths: string[] }> = []
  /** `copy(from, to, { destinationBucket })` calls that succeeded. */
  copies: Array<{ bucket: string; from: string; to: string; destinationBucket: string }> = []

  constructor(options: FakeOptions = {}) {
    this.tables = structuredClone(options.tables ?? {})
    this.failing = options.failing ?? {}
    this.rpcHandlers = options.rpc ?? {}
    this.functionHandlers = options.functions ?? {}
    this.users = options.users ?? []
    for (const u of [...this.users, ...(options.signedInAs ? [options.signedInAs] : [])])
      if (u.factors) this.mfa.seed(u.id, u.factors)
    if (options.signedInAs) this.session = this.sessionFor(options.signedInAs)
    this.apiHandlers = options.api ?? {}
    this.appConfig = options.appConfig ?? {}
    this.authSettings = options.authSettings ?? { email: true, github: true, google: true }
    this.relations = options.relations ?? {}
    this.uploadConflicts = { ...(options.uploadConflicts ?? {}) }
    this.interceptFetch()
  }

  /** Where the SDK's `/api` wrappers find the server (they read these two). */
  supabaseUrl = typeof window === 'undefined' ? 'http://localhost' : window.location.origin
  supabaseKey = 'fake-anon-key'
  apiHandlers: Record<string, ApiHandler>
  appConfig: Record<string, unknown>
  authSettings: Record<string, boolean> | 'error'
  relations: Record<string, { column: string; references?: string }>
  uploadConflicts: Record<string, number>

  /**
   * Answers `fetch` of `{origin}/api/...`, `{origin}/_/app-config.json` and
   * `{origin}/auth/v1/settings` from the handlers (recorded as `api:{path}`,
   * `app-config`, `auth:settings` calls); any other URL goes to the real
   * fetch. The spy is restored after each test.
   */
  private interceptFetch() {
    if (typeof globalThis.fetch !== 'function') return
    const original = globalThis.fetch.bind(globalThis)
    const origin = this.supabaseUrl
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url
      const json = (status: number, body: unknown) =>
        new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
      if (url === `${origin}/_/app-config.json`) {
        this.calls.push({ table: 'app-config', op: 'get', filters: [] })
        return json(200, { anonKey: this.supabaseKey, ...this.appConfig })
      }
      if (url === `${origin}/auth/v1/settings`) {
        this.calls.push({ table: 'auth:settings', op: 'get', filters: [] })
        if (this.authSettings === 'error') return json(500, { code: 500, msg: 'Internal server error' })
        return json(200, { external: this.authSettings, disable_signup: false, mailer_autoconfirm: false })
      }
      if (url.startsWith(`${origin}/api/`)) {
        const path = url.slice(`${origin}/api`.length).split('?')[0]
        const text = typeof init?.body === 'string' ? init.body : ''
        const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>
        this.calls.push({ table: `api:${path}`, op: init?.method?.toLowerCase() ?? 'get', payload: body, filters: [] })
        const handler = this.apiHandlers[path]
        if (!handler) return json(404, { error: 'Not found' })
        const answer = await handler(body)
        return json(answer.status ?? 200, answer.body ?? {})
      }
      return original(input, init)
    })
  }

  sessionFor(user: FakeUser) {
    return {
      user: {
        id: user.id,
        email: user.email,
        user_metadata: { display_name: user.display_name ?? '' },
        factors: this.mfa.factorsOf(user.id),
      },
      access_token: `token-${user.id}`,
    }
  }

  emit(event: string) {
    // As supabase-js hands the session's token to realtime on these events.
    if (event === 'SIGNED_IN' || event === 'TOKEN_REFRESHED') this.realtimeToken = this.session?.access_token ?? null
    if (event === 'SIGNED_OUT') this.realtimeToken = null
    for (const listener of this.listeners) listener(event, this.session)
  }

  /**
   * The access token realtime joins with: set by `realtime.setAuth` and by
   * the auth events above; null until then (a session read from a URL is
   * announced a moment after it is stored), when a private join is refused.
   */
  realtimeToken: string | null = null

  realtime = {
    setAuth: vi.fn(async (token?: string | null) => {
      this.realtimeToken = token ?? this.session?.access_token ?? null
    }),
  }

  from = (table: string) => new FakeQuery(this, table)

  rpc = vi.fn(async (name: string, args: Record<string, unknown> = {}) => {
    this.calls.push({ table: `rpc:${name}`, op: 'rpc', payload: args, filters: [] })
    if (this.unreachable) return { data: null, error: { ...UNREACHABLE } }
    const handler = this.rpcHandlers[name]
    if (!handler) return { data: null, error: { message: `function ${name} does not exist`, code: 'PGRST202' } }
    const result = await handler(args)
    return { data: result.data ?? null, error: result.error ?? null }
  })

  functions = {
    invoke: vi.fn(async (name: string, options: { body?: Record<string, unknown> } = {}) => {
      this.calls.push({ table: `fn:${name}`, op: 'invoke', payload: options.body, filters: [] })
      if (this.unreachable) {
        const error = Object.assign(new Error('Failed to send a request to the Edge Function'), {
          name: 'FunctionsFetchError',
          context: new TypeError('Failed to fetch'),
        })
        return { data: null, error }
      }
      const handler = this.functionHandlers[name]
      // As the server answers a function it does not have: a 404 (functions-js keeps the Response).
      if (!handler) return { data: null, error: functionError(404, 'Function not found') }
      const result = await handler(options.body ?? {})
      return { data: result.data ?? null, error: result.error ?? null }
    }),
  }

  storage = {
    from: (bucket: string) => ({
      upload: vi.fn(async (path: string, file: unknown, options: unknown) => {
        if ((this.uploadConflicts[bucket] ?? 0) > 0) {
          this.uploadConflicts[bucket] -= 1
          this.uploadAttempts.push({ bucket, path, file, options })
          return { data: null, error: { message: 'The resource already exists', statusCode: '409' } }
        }
        if (this.failing[`storage:${bucket}`]) return { data: null, error: this.failing[`storage:${bucket}`] }
        this.uploads.push({ bucket, path, file, options })
        return { data: { path }, error: null }
      }),
      remove: vi.fn(async (paths: string[]) => {
        // Removal fails only when asked for by its own key (uploads keep theirs).
        if (this.failing[`storage-remove:${bucket}`]) return { data: null, error: this.failing[`storage-remove:${bucket}`] }
        this.removals.push({ bucket, paths })
        return { data: [], error: null }
      }),
      copy: vi.fn(async (from: string, to: string, options?: { destinationBucket?: string }) => {
        const destinationBucket = options?.destinationBucket ?? bucket
        if ((this.uploadConflicts[destinationBucket] ?? 0) > 0) {
          this.uploadConflicts[destinationBucket] -= 1
          return { data: null, error: { message: 'The resource already exists', statusCode: '409' } }
        }
        if (this.failing[`storage:${bucket}`]) return { data: null, error: this.failing[`storage:${bucket}`] }
        this.copies.push({ bucket, from, to, destinationBucket })
        return { data: { path: to }, error: null }
      }),
      createSignedUrl: vi.fn(async (path: string, expiresIn: number) => {
        if (this.failing[`storage:${bucket}`]) return { data: null, error: this.failing[`storage:${bucket}`] }
        return { data: { signedUrl: `http://localhost:3000/storage/v1/object/sign/${bucket}/${path}?token=signed-${expiresIn}` }, error: null }
      }),
      // As storage-js builds it: a transform asks the image renderer.
      getPublicUrl: (path: string, options?: { transform?: Record<string, string | number | undefined> }) => {
        const query = new URLSearchParams()
        const t = options?.transform ?? {}
        for (const key of ['width', 'height', 'resize', 'format', 'quality']) {
          if (t[key]) query.set(key, String(t[key]))
        }
        if (Object.keys(t).length === 0) return { data: { publicUrl: `http://localhost:3000/storage/v1/object/public/${bucket}/${path}` } }
        const url = encodeURI(`http://localhost:3000/storage/v1/render/image/public/${bucket}/${path}`)
        return { data: { publicUrl: `${url}?${query.toString()}` } }
      },
    }),
  }

  /** `auth.mfa`: TOTP factors and the session's assurance level (see fake-mfa.ts). */
  mfa: FakeMfa = new FakeMfa(this)
  /** Password resets, e-mail codes and new passwords (see fake-password.ts). */
  passwords: FakePasswordAuth = new FakePasswordAuth(this)

  auth = {
    mfa: this.mfa.api,
    getSession: vi.fn(async () => ({ data: { session: this.session }, error: null })),
    onAuthStateChange: vi.fn((callback: (event: string, session: unknown) => void) => {
      this.listeners.add(callback)
      return { data: { subscription: { unsubscribe: () => this.listeners.delete(callback) } } }
    }),
    signInWithPassword: vi.fn(async ({ email, password }: { email: string; password: string }) => {
      const user = this.users.find((u) => u.email === email && u.password === password)
      if (!user) return { data: { user: null, session: null }, error: { message: 'Invalid login credentials', status: 400 } }
      this.session = this.sessionFor(user)
      this.emit('SIGNED_IN')
      return { data: { user: this.session.user, session: this.session }, error: null }
    }),
    signUp: vi.fn(async ({ email, password, options }: { email: string; password: string; options?: { emailRedirectTo?: string } }) => {
      if (this.users.some((u) => u.email === email))
        return { data: { user: null, session: null }, error: { message: 'User already registered', status: 422 } }
      this.passwords.signedUp({ id: 'new-user', email, password }, options?.emailRedirectTo)
      return { data: { user: { id: 'new-user', email }, session: null }, error: null }
    }),
    ...this.passwords.api,
    signOut: vi.fn(async () => {
      this.session = null
      this.emit('SIGNED_OUT')
      return { error: null }
    }),
    signInWithOAuth: vi.fn(async () => ({ data: { provider: 'github', url: 'http://localhost/authorize' }, error: null })),
    /** Merges `data` into the signed-in user's metadata (recorded as an `auth:updateUser` call). */
    updateUser: vi.fn(async (attributes: { data?: Record<string, unknown>; password?: string; nonce?: string }) => {
      this.calls.push({ table: 'auth:updateUser', op: 'updateUser', payload: attributes, filters: [] })
      if (this.failing['auth:updateUser']) return { data: { user: null }, error: this.failing['auth:updateUser'] }
      if (!this.session) return { data: { user: null }, error: { message: 'Auth session missing!', status: 401 } }
      if (attributes.password) {
        const refused = this.passwords.setPassword(attributes.password, attributes.nonce)
        if (refused) return { data: { user: null }, error: refused }
      }
      this.session.user.user_metadata = { ...this.session.user.user_metadata, ...(attributes.data ?? {}) }
      this.emit('USER_UPDATED')
      return { data: { user: this.session.user }, error: null }
    }),
  }

  channels: FakeChannel[] = []

  channel = vi.fn((name: string, options?: { config?: { private?: boolean } }) => {
    const channel = new FakeChannel(name, options?.config?.private ?? false, () => this.realtimeToken)
    this.channels.push(channel)
    return channel
  })

  removeChannel = vi.fn(async (channel: FakeChannel) => {
    channel.state = 'closed'
    this.channels = this.channels.filter((c) => c !== channel)
    return 'ok' as const
  })

  /** The channels subscribed now that follow row changes (postgres_changes). */
  get liveChannels(): FakeChannel[] {
    return this.channels.filter((c) => c.state === 'joined' && c.bindings.length > 0)
  }

  /** The private channels subscribed now (their broadcasts come from the database). */
  get privateChannels(): FakeChannel[] {
    return this.channels.filter((c) => c.state === 'joined' && c.isPrivate)
  }

  /**
   * Delivers a broadcast `{ event, payload }` on `topic`, as the realtime
   * server relays one that the database sent (`realtime.send`), to every
   * subscribed private channel of that topic listening for the event.
   */
  emitBroadcast(topic: string, event: string, payload: Row): number {
    let delivered = 0
    for (const channel of this.privateChannels)
      if (channel.name === topic) delivered += channel.deliverBroadcast({ type: 'broadcast', event, payload })
    return delivered
  }

  /**
   * Delivers a row change, as the realtime server would, to every subscribed
   * binding whose schema, table, event and `column=eq.value` filter match.
   * Only the payload is delivered: the test changes the tables itself.
   */
  emitChange(change: FakeChange): number {
    const payload = {
      schema: change.schema ?? 'public',
      table: change.table,
      eventType: change.eventType,
      commit_timestamp: new Date().toISOString(),
      new: change.new ?? {},
      old: change.old ?? {},
      errors: null,
    }
    let delivered = 0
    for (const channel of this.liveChannels) delivered += channel.deliver(payload)
    return delivered
  }

  /** The client as the app sees it. */
  get client(): PlinthClient {
    return this as unknown as PlinthClient
  }

  callsTo(table: string, op?: string): RecordedCall[] {
    return this.calls.filter((c) => c.table === table && (!op || c.op === op))
  }
}

export interface FakeChange {
  schema?: string
  table: string
  eventType: 'INSERT' | 'UPDATE' | 'DELETE'
  new?: Row
  old?: Row
}

interface ChangeBinding {
  event: string
  schema: string
  table?: string
  filter?: string
  callback: (payload: Record<string, unknown>) => void
}

interface BroadcastBinding {
  event: string
  callback: (message: { type: 'broadcast'; event: string; payload: Row }) => void
}

/**
 * `supabase.channel(name, { config: { private } })`: postgres_changes and
 * broadcast bindings, joined at once on subscribe.
 */
class FakeChannel {
  state: 'created' | 'joined' | 'closed' = 'created'
  bindings: ChangeBinding[] = []
  broadcasts: BroadcastBinding[] = []

  constructor(
    readonly name: string,
    /** `config.private`: a channel whose join the realtime.messages policies decide. */
    readonly isPrivate = false,
    /** The access token realtime holds now (what a join carries). */
    private readonly token: () => string | null = () => null,
  ) {}

  /** The token the join carried. */
  joinedWith: string | null = null

  on(type: string, filter: Record<string, unknown>, callback: (payload: never) => void) {
    if (this.state !== 'created') throw new Error('fake: cannot add bindings after subscribe()')
    if (type === 'postgres_changes')
      this.bindings.push({ ...(filter as Omit<ChangeBinding, 'callback'>), callback: callback as ChangeBinding['callback'] })
    else if (type === 'broadcast')
      this.broadcasts.push({ event: String(filter.event), callback: callback as BroadcastBinding['callback'] })
    else throw new Error(`fake: unsupported channel binding ${type}`)
    return this
  }

  deliverBroadcast(message: { type: 'broadcast'; event: string; payload: Row }): number {
    let delivered = 0
    for (const b of this.broadcasts) {
      if (b.event !== '*' && b.event !== message.event) continue
      b.callback(message)
      delivered += 1
    }
    return delivered
  }

  subscribe(callback?: (status: string, error?: Error) => void) {
    this.joinedWith = this.token()
    // A private join without a user's token is the anon role's: the policies refuse it.
    if (this.isPrivate && !this.joinedWith) {
      this.state = 'closed'
      const reason = `You do not have permissions to read from this Channel topic: ${this.name}`
      queueMicrotask(() => callback?.('CHANNEL_ERROR', new Error(reason)))
      return this
    }
    this.state = 'joined'
    queueMicrotask(() => {
      if (this.state === 'joined') callback?.('SUBSCRIBED')
    })
    return this
  }

  async unsubscribe() {
    this.state = 'closed'
    return 'ok' as const
  }

  deliver(payload: { schema: string; table: string; eventType: string; new: Row; old: Row }): number {
    let delivered = 0
    for (const b of this.bindings) {
      if (b.schema !== payload.schema || (b.table && b.table !== payload.table)) continue
      if (b.event !== '*' && b.event !== payload.eventType) continue
      if (b.filter) {
        const at = b.filter.indexOf('=eq.')
        if (at < 0) throw new Error(`fake: unsupported realtime filter ${b.filter}`)
        const row = payload.eventType === 'DELETE' ? payload.old : payload.new
        if (!same(row[b.filter.slice(0, at)], b.filter.slice(at + 4))) continue
      }
      b.callback(payload)
      delivered += 1
    }
    return delivered
  }
}

interface Embed {
  /** The key of the embedded object in the row: the alias, else the table. */
  name: string
  table: string
}

/** The top-level `alias:table!hint(columns)` items of a select string. */
function parseEmbeds(columns: string | undefined): Embed[] {
  if (!columns || !columns.includes('(')) return []
  const items: string[] = []
  let depth = 0
  let current = ''
  for (const ch of columns) {
    if (ch === '(') depth += 1
    if (ch === ')') depth -= 1
    if (ch === ',' && depth === 0) {
      items.push(current.trim())
      current = ''
    } else current += ch
  }
  items.push(current.trim())
  const embeds: Embed[] = []
  for (const item of items) {
    const m = /^(?:([\w]+):)?([\w]+)(?:![\w]+)?\(/.exec(item)
    if (m && m[2] !== 'count') embeds.push({ name: m[1] ?? m[2], table: m[2] })
  }
  return embeds
}

class FakeQuery implements PromiseLike<Result> {
  private op = 'select'
  private payload: unknown
  private upsertKeys: string[] = []
  private filters: Array<(r: Row) => boolean> = []
  private described: string[] = []
  private orders: Array<[string, boolean]> = []
  private limitCount: number | null = null
  /** `.range(from, to)`, both ends included, as PostgREST's Range. */
  private rangeOf: [number, number] | null = null
  private singleMode: 'single' | 'maybe' | null = null
  private countMode = false
  private head = false
  /** Embedded resources of the select (`alias:table(...)`), resolved in `embed`. */
  private embeds: Embed[] = []
  /** `.select()` after update/delete: answer with the rows written, as PostgREST's return=representation. */
  private returning = false

  constructor(
    private fake: FakeSupabase,
    private table: string,
  ) {}

  private where(text: string, test: (r: Row) => boolean) {
    this.described.push(text)
    this.filters.push(test)
    return this
  }

  select(_columns?: string, options?: { count?: string; head?: boolean }) {
    this.embeds = parseEmbeds(_columns)
    if (this.op === 'update' || this.op === 'delete') this.returning = true
    if (options?.count) this.countMode = true
    if (options?.head) this.head = true
    return this
  }
  insert(payload: unknown) {
    this.op = 'insert'
    this.payload = payload
    return this
  }
  update(payload: unknown) {
    this.op = 'update'
    this.payload = payload
    return this
  }
  upsert(payload: unknown, options?: { onConflict?: string }) {
    this.op = 'upsert'
    this.payload = payload
    this.upsertKeys = (options?.onConflict ?? 'id').split(',').map((s) => s.trim())
    return this
  }
  delete() {
    this.op = 'delete'
    return this
  }
  eq(c: string, v: unknown) {
    return this.where(`${c}=eq.${String(v)}`, (r) => same(r[c], v))
  }
  neq(c: string, v: unknown) {
    return this.where(`${c}=neq.${String(v)}`, (r) => !same(r[c], v))
  }
  gt(c: string, v: unknown) {
    return this.where(`${c}=gt.${String(v)}`, (r) => compare(r[c], v) > 0)
  }
  gte(c: string, v: unknown) {
    return this.where(`${c}=gte.${String(v)}`, (r) => compare(r[c], v) >= 0)
  }
  lt(c: string, v: unknown) {
    return this.where(`${c}=lt.${String(v)}`, (r) => compare(r[c], v) < 0)
  }
  lte(c: string, v: unknown) {
    return this.where(`${c}=lte.${String(v)}`, (r) => compare(r[c], v) <= 0)
  }
  in(c: string, values: unknown[]) {
    return this.where(`${c}=in.(${values.join(',')})`, (r) => values.some((v) => same(r[c], v)))
  }
  is(c: string, v: unknown) {
    return this.where(`${c}=is.${String(v)}`, (r) => (v === null ? r[c] === null || r[c] === undefined : r[c] === v))
  }
  ilike(c: string, pattern: string) {
    return this.where(`${c}=ilike.${pattern}`, (r) => likeToRegExp(pattern).test(String(r[c] ?? '')))
  }
  or(text: string) {
    const conditions = text.split(',').map(condition)
    return this.where(`or=(${text})`, (r) => conditions.some((test) => test(r)))
  }
  not(c: string, op: string, value: string) {
    if (op !== 'in') throw new Error(`fake: unsupported not.${op}`)
    const values = value.replace(/^\(|\)$/g, '').split(',')
    return this.where(`${c}=not.in.${value}`, (r) => !values.some((v) => same(r[c], v)))
  }
  order(c: string, options?: { ascending?: boolean }) {
    this.orders.push([c, options?.ascending ?? true])
    return this
  }
  limit(n: number) {
    this.limitCount = n
    return this
  }
  range(from: number, to: number) {
    this.rangeOf = [from, to]
    return this
  }
  maybeSingle() {
    this.singleMode = 'maybe'
    return this
  }
  single() {
    this.singleMode = 'single'
    return this
  }

  then<A = Result, B = never>(
    onFulfilled?: ((value: Result) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    return Promise.resolve()
      .then(() => this.run())
      .then(onFulfilled, onRejected)
  }

  /**
   * Adds each embedded resource to a row. A many-to-one embed is found by the
   * row's `{table without trailing s}_id` column (wishlist.template_id ->
   * templates.id), else by `relations`; an embed it cannot resolve is left
   * out, as before embeds were understood.
   */
  private embed(row: Row): Row {
    const out = { ...row }
    for (const e of this.embeds) {
      const relation = this.fake.relations[`${this.table}.${e.table}`] ?? { column: `${e.table.replace(/s$/, '')}_id`, references: 'id' }
      // Rows seeded with the embedded object already keep it.
      if (!(relation.column in row) || row[e.name] !== undefined) continue
      const related = (this.fake.tables[e.table] ?? []).find((r) => same(r[relation.references ?? 'id'], row[relation.column]))
      out[e.name] = related ? structuredClone(related) : null
    }
    return out
  }

  private run(): Result {
    this.fake.calls.push({ table: this.table, op: this.op, payload: this.payload, filters: this.described })
    // `failing` by table (every request) or by `{table}:{op}` (e.g. 'templates_rejected:delete').
    if (this.fake.unreachable) return { data: null, error: { ...UNREACHABLE }, count: null }
    const failure = this.fake.failing[this.table] ?? this.fake.failing[`${this.table}:${this.op}`]
    if (failure) return { data: null, error: failure, count: null }
    const rows = (this.fake.tables[this.table] ??= [])
    const matches = (r: Row) => this.filters.every((f) => f(r))
    switch (this.op) {
      case 'insert': {
        const list = (Array.isArray(this.payload) ? this.payload : [this.payload]) as Row[]
        rows.push(...list.map((r) => ({ ...r })))
        return { data: null, error: null }
      }
      case 'upsert': {
        const list = (Array.isArray(this.payload) ? this.payload : [this.payload]) as Row[]
        for (const r of list) {
          const at = rows.findIndex((x) => this.upsertKeys.every((k) => same(x[k], r[k])))
          if (at >= 0) rows[at] = { ...rows[at], ...r }
          else rows.push({ ...r })
        }
        return { data: null, error: null }
      }
      case 'update': {
        const updated = rows.filter(matches)
        for (const r of updated) Object.assign(r, this.payload as Row)
        return { data: this.returning ? structuredClone(updated) : null, error: null }
      }
      case 'delete': {
        const removed = rows.filter(matches)
        this.fake.tables[this.table] = rows.filter((r) => !matches(r))
        return { data: this.returning ? structuredClone(removed) : null, error: null }
      }
    }
    let found = rows.filter(matches)
    for (const [column, ascending] of [...this.orders].reverse()) {
      found = [...found].sort((a, b) => (ascending ? 1 : -1) * compare(a[column], b[column]))
    }
    const count = found.length
    if (this.rangeOf) {
      const [from, to] = this.rangeOf
      // PostgREST answers a range starting past the end with 416 PGRST103.
      if (from > 0 && from >= count)
        return { data: null, error: { message: 'Requested range not satisfiable', code: 'PGRST103' }, count: null }
      found = found.slice(from, to + 1)
    }
    if (this.limitCount !== null) found = found.slice(0, this.limitCount)
    found = structuredClone(found)
    if (this.embeds.length) found = found.map((r) => this.embed(r))
    if (this.singleMode) {
      if (found.length === 1) return { data: found[0], error: null }
      if (found.length === 0 && this.singleMode === 'maybe') return { data: null, error: null }
      return { data: null, error: { message: 'JSON object requested, multiple (or no) rows returned', code: 'PGRST116' } }
    }
    return { data: this.head ? null : found, error: null, count: this.countMode ? count : null }
  }
}

