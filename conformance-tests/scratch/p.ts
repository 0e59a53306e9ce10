import { sharedValidator } from '../src/harness/schema.js';
const v = sharedValidator();
console.log(v.info('plan/update'));
console.log(v.validateMessage({jsonrpc:'2.0',method:'plan/update',params:{sessionId:'s',seq:3,turnId:'t',entries:[{id:'p1',content:'Answer',status:'in_progress'}]}}, 'daemon'));
