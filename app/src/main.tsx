import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import './index.css'
import { initSupabase } from '@/lib/supabase'

const root = createRoot(document.getElementById('root')!)

// The client (which reads the anon key from the server) and the app's code load side by side.
Promise.all([initSupabase(), import('./app/app')])
  .then(([, { App }]) => {
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    )
  })
  .catch((error: unknown) => {
    console.error('[marketplace] start-up failed', error)
    root.render(
      <div role="alert" style={{ padding: '3rem', textAlign: 'center', fontFamily: 'system-ui, sans-serif' }}>
        <h1 style={{ fontSize: '1.5rem', fontWeight: 700 }}>The marketplace cannot reach its server</h1>
        <p style={{ marginTop: '0.5rem', color: '#475569' }}>Please try again in a moment.</p>
        {/* The app's code may not have loaded: a reload is the retry. */}
        <button
          type="button"
          onClick={() => window.location.reload()}
          style={{ marginTop: '1.25rem', padding: '0.5rem 1rem', border: '1px solid #cbd5e1', borderRadius: '0.5rem', background: '#fff', fontWeight: 500 }}
        >
          Try again
        </button>
      </div>,
    )
  })
