import '../../../scripts/register-paths';
import 'reflect-metadata';
import { runMain } from '@mailroom/runtime';
import { bootstrapDomains } from './bootstrap';

runMain('domains', bootstrapDomains);
