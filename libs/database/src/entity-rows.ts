import { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { Driver } from 'typeorm/driver/Driver';
import { COLUMN_DEFAULT, TableRows } from './insert-rows';

interface InsertShape {
  table: string;
  columns: EntityMetadata['columns'];
  names: string[];
  types: string[];
  /** JSON columns: insertAll writes the value itself as JSON, so the driver must not turn it into JSON text first. */
  isJson: boolean[];
  /** Columns whose values the driver converts (a transformer, or a type it rewrites); the rest are written as they are. */
  isPrepared: boolean[];
}

/**
 * Column types whose values TypeORM's Postgres driver hands on unchanged.
 * Its preparePersistentValue builds a new array of type names for every value
 * that is not a date (about a sixth of what the emails api allocates per
 * accepted email, in a heap profile of the paced send bench), only to return
 * the value as it was for these; the spec checks it still does.
 */
export const UNPREPARED_COLUMN_TYPES: ReadonlySet<unknown> = new Set([
  'text', 'varchar', 'character varying', 'uuid', 'citext',
  'int', 'integer', 'int4', 'smallint', 'int2', 'bigint', 'int8',
  'boolean', 'bool', 'timestamptz',
]);

const shapes = new WeakMap<EntityMetadata, InsertShape>();

/**
 * Entities as rows for insertRows or insertAll, with their columns' Postgres types. TypeORM's own insert builds
 * each row through its query builder, which costs more CPU than the database
 * spends on the rows; this keeps only its column mapping and value
 * preparation (JSON, transformers), read from the entity metadata so a new
 * column needs no change here. An undefined property takes the column's
 * default, as with TypeORM.
 */
export function entityRows<E extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<E>, entities: readonly E[]): TableRows {
  const driver = manager.connection.driver;
  const shape = shapeOf(manager.connection.getMetadata(target), driver);
  const rows = entities.map((entity) =>
    shape.columns.map((column, index) => {
      const value = column.getEntityValue(entity);
      if (value === undefined) return COLUMN_DEFAULT;
      return shape.isPrepared[index] ? driver.preparePersistentValue(value, column) : value;
    }),
  );
  return { table: shape.table, columns: shape.names, types: shape.types, rows };
}

function shapeOf(metadata: EntityMetadata, driver: Driver): InsertShape {
  let shape = shapes.get(metadata);
  if (!shape) {
    const columns = metadata.columns.filter((column) => column.isInsert && !column.isVirtual && !column.isGenerated);
    const table = metadata.schema ? `"${metadata.schema}"."${metadata.tableName}"` : `"${metadata.tableName}"`;
    const types = columns.map((column) => `${driver.normalizeType(column)}${column.isArray ? '[]' : ''}`);
    const isJson = types.map((type) => type === 'json' || type === 'jsonb');
    const transformed = columns.find((column, index) => isJson[index] && column.transformer);
    if (transformed) throw new Error(`entityRows: the JSON column ${table}.${transformed.databaseName} has a transformer, which insertAll does not apply`);
    shape = {
      table,
      columns,
      names: columns.map((column) => column.databaseName),
      types,
      isJson,
      isPrepared: columns.map((column, index) => !isJson[index] && (Boolean(column.transformer) || !UNPREPARED_COLUMN_TYPES.has(column.type))),
    };
    shapes.set(metadata, shape);
  }
  return shape;
}
