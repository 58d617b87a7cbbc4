// Typed wrappers for the marketplace's functions (`/functions/v1/{name}`,
// through the client's own `functions.invoke`) and its `/api/...` routes
// (`fetch`, with the session's access token). Payload types come from the
// Rust structs (typeshare: ./functions-types.ts), never written here.
//
// Every wrapper answers `{ data, error }` as supabase-js does: `data` on
// success, else `error`, a PlinthFunctionError with the HTTP status and the
// server's `{ error }` body (or, for a declined card of the simulated
// provider, Stripe's `{ error: { type, code, decline_code, message } }`:
// `cardError`). Wrappers never throw for a refused request.
import type { SupabaseClient } from '@supabase/supabase-js'
import type {
  CardError,
  CardErrorResponse,
  CreatorOrdersRequest,
  CreatorOrdersResponse,
  CreatorSalesRequest,
  CreatorSalesResponse,
  CreateFreeOrderRequest,
  CreateFreeOrderResponse,
  CreatePaymentIntentRequest,
  CreatePaymentIntentResponse,
  ErrorResponse,
  PaidDownloadConfirmationRequest,
  PaidDownloadConfirmationResponse,
  PayoutStatusRequest,
  PayoutStatusResponse,
  SimulatedConfirmRequest,
  SimulatedConfirmResponse,
  StripeConnectRequest,
  StripeConnectResponse,
  SubscribeToNewsletterRequest,
  SubscribeToNewsletterResponse,
  TrackTemplateViewRequest,
  TrackTemplateViewResponse,
  UpdateStripeAccountRequest,
  UpdateStripeAccountResponse,
  ValidateDownloadRequest,
  ValidateDownloadResponse,
} from './functions-types.js'

/** A request a function or route refused, or one that never got an answer (`status` 0). */
export class PlinthFunctionError extends Error {
  /** The HTTP status; 0 when the server was not reached. */
  readonly status: number
  /** The server's error body (`{ error, ... }`), when it sent one. */
  readonly body: ErrorResponse | null
  /** A declined card (status 402), in Stripe's error shape; `message` is its `message`. */
  readonly cardError: CardError | null

  constructor(
    message: string,
    status: number,
    body: ErrorResponse | null,
    options?: { cause?: unknown; cardError?: CardError },
  ) {
    super(message, options)
    this.name = 'PlinthFunctionError'
    this.status = status
    this.body = body
    this.cardError = options?.cardError ?? null
  }
}

/** What every wrapper resolves to, in supabase-js's `{ data, error }` style. */
export type PlinthResult<T> = { data: T; error: null } | { data: null; error: PlinthFunctionError }

/** Any supabase-js client: the wrappers use its functions client and its session. */
export type ClientLike = Pick<SupabaseClient, 'functions' | 'auth'>

/** Where a client's server is and which API key it uses. */
interface Endpoint {
  url: string
  anonKey: string
}

const endpoints = new WeakMap<object, Endpoint>()

/** Records the URL and key a client was made with (`createClient` of this package does). */
export function registerEndpoint(client: object, url: string, anonKey: string): void {
  endpoints.set(client, { url: url.replace(/\/+$/, ''), anonKey })
}

/** The client's URL and key: recorded, else read from the client itself. */
function endpointOf(client: ClientLike): Endpoint | null {
  const known = endpoints.get(client)
  if (known) return known
  const own = client as unknown as { supabaseUrl?: unknown; supabaseKey?: unknown }
  if (typeof own.supabaseUrl === 'string' && typeof own.supabaseKey === 'string') {
    return { url: own.supabaseUrl.replace(/\/+$/, ''), anonKey: own.supabaseKey }
  }
  return null
}

function isErrorResponse(value: unknown): value is ErrorResponse {
  return typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string'
}

function isCardErrorResponse(value: unknown): value is CardErrorResponse {
  const error = typeof value === 'object' && value !== null ? (value as { error?: unknown }).error : null
  if (typeof error !== 'object' || error === null) return false
  const { type, code, message } = error as Record<string, unknown>
  return type === 'card_error' && typeof code === 'string' && typeof message === 'string'
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text()
  if (!text) return null
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

function refused(status: number, body: unknown, fallback: string, cause?: unknown): PlinthFunctionError {
  if (isCardErrorResponse(body)) {
    return new PlinthFunctionError(body.error.message || fallback, status, null, { cause, cardError: body.error })
  }
  const error = isErrorResponse(body) ? body : null
  return new PlinthFunctionError(error?.error ?? fallback, status, error, { cause })
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** `client.functions.invoke(name)` with a typed body and answer. */
async function invoke<Req extends object, Res>(client: ClientLike, name: string, body: Req): Promise<PlinthResult<Res>> {
  const { data, error } = await client.functions.invoke<Res>(name, { body: body as Record<string, unknown> })
  if (!error) return { data: data as Res, error: null }
  // FunctionsHttpError carries the Response; relay and fetch errors do not.
  const context = (error as { context?: unknown }).context
  if (context instanceof Response) {
    const parsed = context.bodyUsed ? null : await readJson(context)
    return { data: null, error: refused(context.status, parsed, describe(error), error) }
  }
  return { data: null, error: new PlinthFunctionError(describe(error), 0, null, { cause: error }) }
}

/** Options of the `/api` wrappers. */
export interface ApiOptions {
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch
}

/** `POST /api{path}` with the session's access token (else the API key). */
async function post<Req extends object, Res>(
  client: ClientLike,
  path: string,
  body: Req,
  options: ApiOptions = {},
): Promise<PlinthResult<Res>> {
  const endpoint = endpointOf(client)
  if (!endpoint) {
    const message = 'the client has no known URL: make it with createClient of @plinth/sdk'
    return { data: null, error: new PlinthFunctionError(message, 0, null) }
  }
  const { data } = await client.auth.getSession()
  const token = data.session?.access_token ?? endpoint.anonKey
  let response: Response
  try {
    response = await (options.fetch ?? fetch)(`${endpoint.url}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', apikey: endpoint.anonKey, authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    })
  } catch (e) {
    return { data: null, error: new PlinthFunctionError(`request to /api${path} failed: ${describe(e)}`, 0, null, { cause: e }) }
  }
  const parsed = await readJson(response)
  if (!response.ok) return { data: null, error: refused(response.status, parsed, `/api${path} answered ${response.status}`) }
  return { data: parsed as Res, error: null }
}

// ---------------------------------------------------------------- functions

/** Counts a view of a published template, once per visitor per window. */
export function trackTemplateView(client: ClientLike, request: TrackTemplateViewRequest) {
  return invoke<TrackTemplateViewRequest, TrackTemplateViewResponse>(client, 'track-template-view', request)
}

/** A free template: records the order, e-mails a lasting link, answers a download URL. */
export function createFreeOrder(client: ClientLike, request: CreateFreeOrderRequest) {
  return invoke<CreateFreeOrderRequest, CreateFreeOrderResponse>(client, 'create-free-order', request)
}

/** A paid template: a pending order and a payment to confirm (the price is the server's). */
export function createPaymentIntent(client: ClientLike, request: CreatePaymentIntentRequest) {
  return invoke<CreatePaymentIntentRequest, CreatePaymentIntentResponse>(client, 'create-payment-intent', request)
}

/** The download of an order and its token; `error.status` 402 while unpaid, 403 for a wrong token. */
export function validateDownload(client: ClientLike, request: ValidateDownloadRequest) {
  return invoke<ValidateDownloadRequest, ValidateDownloadResponse>(client, 'validate-download', request)
}

/** Adds an address to the newsletter (once per address). */
export function subscribeToNewsletter(client: ClientLike, request: SubscribeToNewsletterRequest) {
  return invoke<SubscribeToNewsletterRequest, SubscribeToNewsletterResponse>(client, 'subscribe-to-newsletter', request)
}

// --------------------------------------------------------------- /api routes

/** E-mails the receipt of a paid order to its buyer, once. */
export function paidDownloadConfirmation(
  client: ClientLike,
  request: PaidDownloadConfirmationRequest,
  options?: ApiOptions,
) {
  return post<PaidDownloadConfirmationRequest, PaidDownloadConfirmationResponse>(
    client,
    '/paid-download-confirmation',
    request,
    options,
  )
}

/** The signed-in creator's payment-account onboarding link (`url`). */
export function stripeConnect(client: ClientLike, request: StripeConnectRequest, options?: ApiOptions) {
  return post<StripeConnectRequest, StripeConnectResponse>(client, '/stripe/connect', request, options)
}

/** Stores the connected account after onboarding. */
export function updateStripeAccount(client: ClientLike, request: UpdateStripeAccountRequest, options?: ApiOptions) {
  return post<UpdateStripeAccountRequest, UpdateStripeAccountResponse>(
    client,
    '/user/update-stripe-account',
    request,
    options,
  )
}

/**
 * Confirms a payment of the simulated provider (a server without a Stripe
 * key): `paymentId` is the last segment of `confirmUrl`'s path. With a
 * `card_number`, Stripe's declining test cards are refused with status 402
 * and `error.cardError` (4000 0000 0000 0002, 4000 0000 0000 9995,
 * 4000 0000 0000 0119); other valid numbers, or none, succeed.
 */
export function confirmSimulatedPayment(
  client: ClientLike,
  paymentId: string,
  request: SimulatedConfirmRequest,
  options?: ApiOptions,
) {
  return post<SimulatedConfirmRequest, SimulatedConfirmResponse>(
    client,
    `/simulated-payments/${encodeURIComponent(paymentId)}/confirm`,
    request,
    options,
  )
}

/**
 * The signed-in creator's revenue per day, week or month of a range (`30d`,
 * `90d`, `12m`), totals and per-template figures: their own templates only.
 */
export function creatorSales(client: ClientLike, request: CreatorSalesRequest, options?: ApiOptions) {
  return post<CreatorSalesRequest, CreatorSalesResponse>(client, '/creator/sales', request, options)
}

/** One page of the orders of the signed-in creator's templates (buyers masked). */
export function creatorOrders(client: ClientLike, request: CreatorOrdersRequest, options?: ApiOptions) {
  return post<CreatorOrdersRequest, CreatorOrdersResponse>(client, '/creator/orders', request, options)
}

/** The signed-in creator's payout status at the payment provider (`userId`: their own). */
export function payoutStatus(client: ClientLike, request: PayoutStatusRequest, options?: ApiOptions) {
  return post<PayoutStatusRequest, PayoutStatusResponse>(client, '/stripe/payout-status', request, options)
}

/** The functions at `/functions/v1`, typed. */
export const functions = {
  trackTemplateView,
  createFreeOrder,
  createPaymentIntent,
  validateDownload,
  subscribeToNewsletter,
} as const

/** The routes at `/api`, typed. */
export const api = {
  paidDownloadConfirmation,
  stripeConnect,
  updateStripeAccount,
  confirmSimulatedPayment,
  creatorSales,
  creatorOrders,
  payoutStatus,
} as const
