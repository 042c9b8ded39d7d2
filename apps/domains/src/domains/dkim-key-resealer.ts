import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SealedColumns, SecretResealer } from '@mailroom/runtime';
import { DomainSettings } from './domain-settings';

/**
 * After ENCRYPTION_KEY changed, seals each domain's DKIM private key again under it, so ENCRYPTION_KEY_PREVIOUS
 * can go from this service and from the emails service it sends the keys to (see SecretResealer).
 */
@Injectable()
export class DkimKeyResealer extends SecretResealer {
  protected readonly sealed: SealedColumns = {
    kind: 'dkim_key',
    what: 'DKIM private keys',
    table: 'domains.domains',
    columns: ['dkim_private_key_sealed'],
  };

  constructor(@InjectDataSource() dataSource: DataSource, settings: DomainSettings) {
    super(dataSource, settings.secretBox);
  }
}
