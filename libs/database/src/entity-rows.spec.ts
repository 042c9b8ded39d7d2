import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { COLUMN_DEFAULT } from './insert-rows';
import { UNPREPARED_COLUMN_TYPES, entityRows } from './entity-rows';

/** One column of every type entityRows writes without asking the driver, with a value of that type. */
const SAMPLES: Record<string, unknown> = {
  text: 'text',
  varchar: 'varchar',
  'character varying': 'character varying',
  uuid: '0b5e8a2c-7d1f-4c3e-9a6b-2f4d8e1c5a70',
  citext: 'Citext',
  int: 1,
  integer: 2,
  int4: 3,
  smallint: 4,
  int2: 5,
  bigint: '9007199254740993',
  int8: '9007199254740994',
  boolean: true,
  bool: false,
  timestamptz: new Date('2026-11-29T12:00:00.000Z'),
};

@Entity({ name: 'every_type', schema: 'spec' })
class EveryTypeEntity {
  @PrimaryColumn('text') id!: string;
}
for (const type of Object.keys(SAMPLES)) Column(type as 'text', { name: `c_${type}`, nullable: true })(EveryTypeEntity.prototype, `c_${type}`);
Column('text', { name: 'tags', array: true, nullable: true })(EveryTypeEntity.prototype, 'tags');

@Entity({ name: 'prepared', schema: 'spec' })
class PreparedEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { transformer: { to: (value: string) => value.toLowerCase(), from: (value: string) => value } }) lowered!: string;
  @Column('date') day!: Date;
  @Column('jsonb') body!: object;
  @Column('timestamptz', { nullable: true }) at?: Date;
}

async function metadataOnly(): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'postgres', entities: [EveryTypeEntity, PreparedEntity] });
  // Metadata without a connection: nothing here talks to Postgres.
  await (dataSource as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  return dataSource;
}

describe('entityRows', () => {
  it('lists only types that TypeORM hands on unchanged, so leaving the driver out changes no value', async () => {
    const dataSource = await metadataOnly();
    const metadata = dataSource.getMetadata(EveryTypeEntity);
    expect(new Set(Object.keys(SAMPLES))).toEqual(UNPREPARED_COLUMN_TYPES);
    for (const [type, value] of Object.entries(SAMPLES)) {
      const column = metadata.findColumnWithPropertyName(`c_${type}`)!;
      expect(column.type).toBe(type);
      expect(dataSource.driver.preparePersistentValue(value, column)).toBe(value);
    }
    const tags = ['a', 'b'];
    expect(dataSource.driver.preparePersistentValue(tags, metadata.findColumnWithPropertyName('tags')!)).toBe(tags);
  });

  it('writes unprepared values as they are and still lets the driver prepare the rest', async () => {
    const dataSource = await metadataOnly();
    const entity = Object.assign(new PreparedEntity(), {
      id: 'p1',
      lowered: 'MiXeD',
      day: new Date('2026-11-29T12:00:00.000Z'),
      body: { nested: [1, 2] },
    });
    const rows = entityRows(dataSource.manager, PreparedEntity, [entity]);
    const value = (name: string): unknown => rows.rows[0][rows.columns.indexOf(name)];
    expect(rows.table).toBe('"spec"."prepared"');
    expect(value('id')).toBe('p1');
    expect(value('lowered')).toBe('mixed');
    expect(value('day')).toBe('2026-11-29');
    expect(value('body')).toBe(entity.body);
    expect(value('at')).toBe(COLUMN_DEFAULT);
  });
});
