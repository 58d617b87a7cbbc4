// Markdown from creators, rendered safely: raw HTML is not parsed, and the
// sanitiser drops anything outside GitHub's safe subset (scripts, event
// handlers, javascript: and other unsafe URLs).
import ReactMarkdown from 'react-markdown'
import rehypeSanitize from 'rehype-sanitize'

export function Markdown({ children }: { children: string }) {
  return (
    <div className="prose-market">
      <ReactMarkdown
        rehypePlugins={[rehypeSanitize]}
        components={{
          a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer nofollow" />,
        }}
      >
        {children}
      </ReactMarkdown>
    </div>
  )
}
