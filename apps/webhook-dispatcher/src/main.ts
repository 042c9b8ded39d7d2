import '../../../scripts/register-paths';
import 'reflect-metadata';
import { runMain } from '@mailroom/runtime';
import { bootstrapWebhooks } from './bootstrap';

runMain('webhook-dispatcher', bootstrapWebhooks);
