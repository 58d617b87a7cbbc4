import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { admin, unwrap, type Ok } from '@/lib/supabase'
import { folderOf, publicSignedUrl } from '../lib/urls'

type StorageApi = ReturnType<typeof admin>['storage']
export type Bucket = Ok<Awaited<ReturnType<StorageApi['listBuckets']>>>[number]
export type FileObject = Ok<Awaited<ReturnType<ReturnType<StorageApi['from']>['list']>>>[number]

export type BucketInput = { public: boolean; fileSizeLimit: number | string | null; allowedMimeTypes: string[] | null }

export function useBuckets() {
  return useQuery({
    queryKey: ['buckets'],
    queryFn: async (): Promise<Bucket[]> => unwrap(await admin().storage.listBuckets()),
  })
}

export function useObjects(bucket: string | null, prefix: string) {
  return useQuery({
    queryKey: ['objects', bucket, folderOf(prefix)],
    enabled: !!bucket,
    queryFn: async (): Promise<FileObject[]> =>
      unwrap(await admin().storage.from(bucket!).list(folderOf(prefix), { limit: 1000, offset: 0, sortBy: { column: 'name', order: 'asc' } })),
  })
}

function useInvalidate() {
  const client = useQueryClient()
  return (what: 'buckets' | 'objects') => client.invalidateQueries({ queryKey: [what] })
}

export function useCreateBucket() {
  const invalidate = useInvalidate()
  return useMutation({
    mutationFn: async ({ id, ...options }: BucketInput & { id: string }) => unwrap(await admin().storage.createBucket(id, options)),
    onSuccess: () => invalidate('buckets'),
  })
}

export function useUpdateBucket() {
  const invalidate = useInvalidate()
  return useMutation({
    mutationFn: async ({ id, ...options }: BucketInput & { id: string }) => unwrap(await admin().storage.updateBucket(id, options)),
    onSuccess: () => invalidate('buckets'),
  })
}

/** Empties the bucket, then deletes it. */
export function useDeleteBucket() {
  const invalidate = useInvalidate()
  return useMutation({
    mutationFn: async (id: string) => {
      unwrap(await admin().storage.emptyBucket(id))
      return unwrap(await admin().storage.deleteBucket(id))
    },
    onSuccess: () => {
      void invalidate('buckets')
      void invalidate('objects')
    },
  })
}

export function useUpload(bucket: string) {
  const invalidate = useInvalidate()
  return useMutation({
    mutationFn: async ({ path, file }: { path: string; file: File }) =>
      unwrap(await admin().storage.from(bucket).upload(path, file, { contentType: file.type || undefined })),
    onSuccess: () => invalidate('objects'),
  })
}

export function useRemoveObject(bucket: string) {
  const invalidate = useInvalidate()
  return useMutation({
    mutationFn: async (path: string) => unwrap(await admin().storage.from(bucket).remove([path])),
    onSuccess: () => invalidate('objects'),
  })
}

export async function downloadObject(bucket: string, path: string): Promise<void> {
  const blob = unwrap(await admin().storage.from(bucket).download(path))
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = path.split('/').pop() || 'download'
  a.style.display = 'none'
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** A signed URL valid for `seconds`, as the node's public URL. */
export async function signedUrl(bucket: string, path: string, seconds = 3600): Promise<string> {
  const { signedUrl } = unwrap(await admin().storage.from(bucket).createSignedUrl(path, seconds))
  return publicSignedUrl(signedUrl)
}
