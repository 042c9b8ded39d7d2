import '../../../scripts/register-paths';
import 'reflect-metadata';
import { runMain } from '@mailroom/runtime';
import { bootstrapKeys } from './bootstrap';

runMain('keys', bootstrapKeys);
