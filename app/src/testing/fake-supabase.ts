// An in-memory stand-in for the SDK client: tables as arrays of rows with the
// query-builder filters the app uses, RPC and function handlers, storage and
// auth. Component tests replace `@/lib/supabase` (the network boundary) with
// it; nothing of the app itself is stubbed.
import { vi } from 'vitest'
import type { PlinthClient } from '@plinth/sdk'

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
  session: { user: { id: string; email: string; user_metadata: Record<string, unknown> }; access_token: string } | null = null
  listeners = new Set<(event: string, session: unknown) => void>()
  uploads: Array<{ bucket: string; path: string; file: unknown; options: unknown }> = []
  removals: Array<{ bucket: string; paths: string[] }> = []

  constructor(options: FakeOptions = {}) {
    this.tables = structuredClone(options.tables ?? {})
    this.failing = options.failing ?? {}
    this.rpcHandlers = options.rpc ?? {}
    this.functionHandlers = options.functions ?? {}
    this.users = options.users ?? []
    if (options.signedInAs) this.session = this.sessionFor(options.signedInAs)
  }

  sessionFor(user: FakeUser) {
    return {
      user: { id: user.id, email: user.email, user_metadata: { display_name: user.display_name ?? '' } },
      access_token: `token-${user.id}`,
    }
  }

  emit(event: string) {
    for (const listener of this.listeners) listener(event, this.session)
  }

  from = (table: string) => new FakeQuery(this, table)

  rpc = vi.fn(async (name: string, args: Record<string, unknown> = {}) => {
    this.calls.push({ table: `rpc:${name}`, op: 'rpc', payload: args, filters: [] })
    const handler = this.rpcHandlers[name]
    if (!handler) return { data: null, error: { message: `function ${name} does not exist`, code: 'PGRST202' } }
    const result = await handler(args)
    return { data: result.data ?? null, error: result.error ?? null }
  })

  functions = {
    invoke: vi.fn(async (name: string, options: { body?: Record<string, unknown> } = {}) => {
      this.calls.push({ table: `fn:${name}`, op: 'invoke', payload: options.body, filters: [] })
      const handler = this.functionHandlers[name]
      if (!handler) return { data: null, error: { message: 'Function not found', name: 'FunctionsHttpError' } }
      const result = await handler(options.body ?? {})
      return { data: result.data ?? null, error: result.error ?? null }
    }),
  }

  storage = {
    from: (bucket: string) => ({
      upload: vi.fn(async (path: string, file: unknown, options: unknown) => {
        if (this.failing[`storage:${bucket}`]) return { data: null, error: this.failing[`storage:${bucket}`] }
        this.uploads.push({ bucket, path, file, options })
        return { data: { path }, error: null }
      }),
      remove: vi.fn(async (paths: string[]) => {
        this.removals.push({ bucket, paths })
        return { data: [], error: null }
      }),
      getPublicUrl: (path: string) => ({
        data: { publicUrl: `http://localhost:3000/storage/v1/object/public/${bucket}/${path}` },
      }),
    }),
  }

  auth = {
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
    signUp: vi.fn(async ({ email }: { email: string; password: string }) => {
      if (this.users.some((u) => u.email === email))
        return { data: { user: null, session: null }, error: { message: 'User already registered', status: 422 } }
      return { data: { user: { id: 'new-user', email }, session: null }, error: null }
    }),
    signOut: vi.fn(async () => {
      this.session = null
      this.emit('SIGNED_OUT')
      return { error: null }
    }),
    signInWithOAuth: vi.fn(async () => ({ data: { provider: 'github', url: 'http://localhost/authorize' }, error: null })),
  }

  channels: FakeChannel[] = []

  channel = vi.fn((name: string) => {
    const channel = new FakeChannel(name)
    this.channels.push(channel)
    return channel
  })

  removeChannel = vi.fn(async (channel: FakeChannel) => {
    channel.state = 'closed'
    this.channels = this.channels.filter((c) => c !== channel)
    return 'ok' as const
  })

  /** The channels that are subscribed now. */
  get liveChannels(): FakeChannel[] {
    return this.channels.filter((c) => c.state === 'joined')
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

/** `supabase.channel(name)`: postgres_changes bindings, joined at once on subscribe. */
class FakeChannel {
  state: 'created' | 'joined' | 'closed' = 'created'
  bindings: ChangeBinding[] = []

  constructor(readonly name: string) {}

  on(type: string, filter: Omit<ChangeBinding, 'callback'>, callback: ChangeBinding['callback']) {
    if (type !== 'postgres_changes') throw new Error(`fake: unsupported channel binding ${type}`)
    if (this.state !== 'created') throw new Error('fake: cannot add bindings after subscribe()')
    this.bindings.push({ ...filter, callback })
    return this
  }

  subscribe(callback?: (status: string, error?: Error) => void) {
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

class FakeQuery implements PromiseLike<Result> {
  private op = 'select'
  private payload: unknown
  private upsertKeys: string[] = []
  private filters: Array<(r: Row) => boolean> = []
  private described: string[] = []
  private orders: Array<[string, boolean]> = []
  private limitCount: number | null = null
  private singleMode: 'single' | 'maybe' | null = null
  private countMode = false
  private head = false

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

  private run(): Result {
    this.fake.calls.push({ table: this.table, op: this.op, payload: this.payload, filters: this.described })
    const failure = this.fake.failing[this.table]
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
        for (const r of rows.filter(matches)) Object.assign(r, this.payload as Row)
        return { data: null, error: null }
      }
      case 'delete': {
        this.fake.tables[this.table] = rows.filter((r) => !matches(r))
        return { data: null, error: null }
      }
    }
    let found = rows.filter(matches)
    for (const [column, ascending] of [...this.orders].reverse()) {
      found = [...found].sort((a, b) => (ascending ? 1 : -1) * compare(a[column], b[column]))
    }
    const count = found.length
    if (this.limitCount !== null) found = found.slice(0, this.limitCount)
    found = structuredClone(found)
    if (this.singleMode) {
      if (found.length === 1) return { data: found[0], error: null }
      if (found.length === 0 && this.singleMode === 'maybe') return { data: null, error: null }
      return { data: null, error: { message: 'JSON object requested, multiple (or no) rows returned', code: 'PGRST116' } }
    }
    return { data: this.head ? null : found, error: null, count: this.countMode ? count : null }
  }
}

