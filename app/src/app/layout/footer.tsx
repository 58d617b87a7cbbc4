import { Link } from 'react-router'
import { LayoutTemplate } from 'lucide-react'
import { Container } from '@/components/ui/layout'
import { BRAND } from '@/config/constants'

const heading = 'text-sm font-semibold uppercase tracking-wide text-slate-900'
const item = 'text-sm text-slate-600 hover:text-brand-700 rounded focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500'

export function Footer() {
  return (
    <footer className="mt-16 border-t border-slate-200 bg-white">
      <Container className="grid gap-10 py-12 sm:grid-cols-2 lg:grid-cols-4">
        <div className="lg:col-span-2">
          <div className="flex items-center gap-2">
            <span className="flex h-8 w-8 items-center justify-center rounded-lg bg-brand-600 text-white">
              <LayoutTemplate className="h-4 w-4" aria-hidden />
            </span>
            <span className="font-bold text-slate-900">{BRAND}</span>
          </div>
          <p className="mt-3 max-w-sm text-sm text-slate-600">
            The marketplace for workspace templates. Discover systems made by creators, get free templates, buy premium
            ones, and share your own.
          </p>
          <div className="mt-4 flex gap-4">
            <a className={item} href="https://x.com" target="_blank" rel="noopener noreferrer">X</a>
            <a className={item} href="https://www.instagram.com" target="_blank" rel="noopener noreferrer">Instagram</a>
            <a className={item} href="https://www.youtube.com" target="_blank" rel="noopener noreferrer">YouTube</a>
          </div>
        </div>
        <nav aria-label="Platform">
          <h2 className={heading}>Platform</h2>
          <ul className="mt-3 space-y-2">
            <li><Link className={item} to="/discover">Discover</Link></li>
            <li><Link className={item} to="/categories">Categories</Link></li>
            <li><Link className={item} to="/creators">Creators</Link></li>
            <li><Link className={item} to="/upload">Upload Template</Link></li>
          </ul>
        </nav>
        <nav aria-label="Support">
          <h2 className={heading}>Support</h2>
          <ul className="mt-3 space-y-2">
            {['Help Center', 'Contact Us', 'Privacy Policy', 'Terms of Service'].map((label) => (
              <li key={label}>
                <a className={item} href="#" onClick={(e) => e.preventDefault()}>{label}</a>
              </li>
            ))}
          </ul>
        </nav>
      </Container>
      <div className="border-t border-slate-100 py-6 text-center text-sm text-slate-600">
        © 2024 {BRAND}. All rights reserved.
      </div>
    </footer>
  )
}
