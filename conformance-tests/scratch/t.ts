import { sharedValidator } from '../src/harness/schema.ts';
const v = sharedValidator();
console.log(v.validateMessage({jsonrpc:'2.0',id:1,method:'initialize',params:{protocolVersion:1,capabilities:{}}}, 'client'));
console.log(v.validateMessage({jsonrpc:'2.0',id:1,method:'initialize',params:{protocolVersion:'x'}}, 'client'));
console.log(v.validateMessage({jsonrpc:'2.0',id:1,method:'shutdown'}, 'client'));
console.log(v.validateMessage({jsonrpc:'2.0',id:1,result:{protocolVersion:1}}, 'daemon', ()=> 'initialize'));
console.log(v.validateMessage({jsonrpc:'2.0',id:null,error:{code:-32700,message:'x'}}, 'daemon'));
console.log(v.validateMessage({jsonrpc:'2.0',id:1,method:'session/list'}, 'client'));
console.log(v.validateMessage({jsonrpc:'2.0',method:'session/state', params:{sessionId:'s',seq:1,state:'idle'}}, 'daemon'));
