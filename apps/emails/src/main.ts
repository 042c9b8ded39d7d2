import '../../../scripts/register-paths';
import 'reflect-metadata';
import { runMain } from '@mailroom/runtime';
import { bootstrapEmails } from './bootstrap';

runMain('emails', bootstrapEmails);
