import { Spinner } from './feedback'

/**
 * A page's loading state: the spinner at the top of a screen-high box, so
 * that the footer stays below the fold until the page takes its place.
 * Under a bare spinner the footer fills a phone's screen and is pushed off it
 * when the page arrives: the largest layout shift of a first visit (issue 24).
 */
export function PageSpinner({ label }: { label: string }) {
  return (
    <div className="min-h-screen" data-testid="page-spinner">
      <Spinner label={label} />
    </div>
  )
}
