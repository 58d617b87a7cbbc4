// GET /schema: the exposed schemas and their relations (tables, views, columns,
// keys). Tables, policies and realtime all pick tables from it.
import { useQuery } from '@tanstack/react-query'
import { apiGet } from './api'

export type Column = {
  name: string
  type: string
  pretty_type: string
  ts_type: string
  nullable: boolean
  default: string | null
  generated: boolean
}

export type ForeignKey = {
  name: string
  columns: string[]
  references: { schema: string; table: string; columns: string[] }
}

export type Relation = {
  schema: string
  name: string
  kind: 'table' | 'view' | string
  primary_key: string[]
  columns: Column[]
  foreign_keys: ForeignKey[]
}

export type SchemaAnswer = { schemas: string[]; relations: Relation[] }

export function useSchema() {
  return useQuery({ queryKey: ['schema'], queryFn: () => apiGet<SchemaAnswer>('/schema'), staleTime: 60_000 })
}
