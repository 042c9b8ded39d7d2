import { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { Driver } from 'typeorm/driver/Driver';
import { COLUMN_DEFAULT, TableRows } from './insert-rows';

interface InsertShape {
  table: string;
  columns: EntityMetadata['columns'];
  names: string[];
  types: string[];
}

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
    shape.columns.map((column) => {
      const value = column.getEntityValue(entity);
      return value === undefined ? COLUMN_DEFAULT : driver.preparePersistentValue(value, column);
    }),
  );
  return { table: shape.table, columns: shape.names, types: shape.types, rows };
}

function shapeOf(metadata: EntityMetadata, driver: Driver): InsertShape {
  let shape = shapes.get(metadata);
  if (!shape) {
    const columns = metadata.columns.filter((column) => column.isInsert && !column.isVirtual && !column.isGenerated);
    const table = metadata.schema ? `"${metadata.schema}"."${metadata.tableName}"` : `"${metadata.tableName}"`;
    shape = {
      table,
      columns,
      names: columns.map((column) => column.databaseName),
      types: columns.map((column) => `${driver.normalizeType(column)}${column.isArray ? '[]' : ''}`),
    };
    shapes.set(metadata, shape);
  }
  return shape;
}
