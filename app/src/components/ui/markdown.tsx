// Markdown from creators, rendered safely: raw HTML is not parsed, and the
// sanitiser drops anything outside GitHub's safe subset (scripts, event
// handlers, javascript: and other unsafe URLs).
//
// One addition: underline. Markdown has none, so the editor
// (`@/components/markdown-editor`) stores it as the inline pair `<u>text</u>`.
// `remarkUnderline` turns only matched `<u>`/`</u>` pairs into a `u` element
// and the sanitiser schema allows `u` (no attributes) on top of GitHub's
// subset; all other raw HTML (an unmatched `<u>` included) is still dropped.
import ReactMarkdown from 'react-markdown'
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize'
import type { Nodes, Root } from 'mdast'

const sanitizeSchema = { ...defaultSchema, tagNames: [...(defaultSchema.tagNames ?? []), 'u'] }

function isTag(node: Nodes | undefined, tag: string): boolean {
  return node?.type === 'html' && node.value.trim().toLowerCase() === tag
}

function wrapUnderlines(node: Nodes): void {
  if (!('children' in node)) return
  const kids = node.children as Nodes[]
  for (const child of kids) wrapUnderlines(child)
  const open: number[] = []
  for (let i = 0; i < kids.length; i++) {
    if (isTag(kids[i], '<u>')) open.push(i)
    else if (isTag(kids[i], '</u>') && open.length > 0) {
      const from = open.pop()!
      // An existing phrasing node renamed to `u`: every mdast-to-hast handler honours data.hName.
      const u = { type: 'emphasis', data: { hName: 'u' }, children: kids.slice(from + 1, i) } as Nodes
      kids.splice(from, i - from + 1, u)
      i = from
    }
  }
}

function remarkUnderline() {
  return (tree: Root) => wrapUnderlines(tree)
}

export function Markdown({ children }: { children: string }) {
  return (
    <div className="prose-market">
      <ReactMarkdown
        remarkPlugins={[remarkUnderline]}
        rehypePlugins={[[rehypeSanitize, sanitizeSchema]]}
        components={{
          a: ({ node: _node, ...props }) => <a {...props} target="_blank" rel="noopener noreferrer nofollow" />,
        }}
      >
        {children}
      </ReactMarkdown>
    </div>
  )
}
