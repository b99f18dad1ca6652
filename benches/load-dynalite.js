// Bench helper (never used by shardlens itself): creates a table on a local dynalite server and fills it
// with BatchWriteItem, 8 requests in flight. dynalite does not check signatures, so a well-formed dummy
// Authorization header is enough.
//
//   node benches/load-dynalite.js PORT TABLE ITEMS KEYS
'use strict'
const http = require('http')

const [port, table, items, keys] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4]), Number(process.argv[5] || 10000)]
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })

function call (op, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body)
    const req = http.request({
      host: '127.0.0.1', port, method: 'POST', path: '/', agent,
      headers: {
        'Content-Type': 'application/x-amz-json-1.0',
        'X-Amz-Target': 'DynamoDB_20120810.' + op,
        'X-Amz-Date': '20250101T000000Z',
        Authorization: 'AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/dynamodb/aws4_request, ' +
          'SignedHeaders=host;x-amz-date, Signature=0',
        'Content-Length': Buffer.byteLength(data),
      },
    }, (res) => {
      let out = ''
      res.on('data', (c) => { out += c })
      res.on('end', () => res.statusCode === 200 ? resolve(JSON.parse(out)) : reject(new Error(op + ': ' + out)))
    })
    req.on('error', reject)
    req.end(data)
  })
}

async function main () {
  await call('CreateTable', {
    TableName: table,
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
    BillingMode: 'PAY_PER_REQUEST',
  })
  const payload = 'x'.repeat(200)
  let next = 0
  async function worker () {
    while (next < items) {
      const start = next
      next = Math.min(items, next + 25)
      const batch = []
      for (let i = start; i < next; i++) {
        // Zipf-ish: low key numbers get many more items.
        const k = Math.floor(keys * Math.pow((i * 7919 % items) / items, 3))
        batch.push({ PutRequest: { Item: { pk: { S: 'user#' + k }, sk: { N: String(i) }, payload: { S: payload } } } })
      }
      const out = await call('BatchWriteItem', { RequestItems: { [table]: batch } })
      if (out.UnprocessedItems && Object.keys(out.UnprocessedItems).length) throw new Error('unprocessed items')
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  agent.destroy()
}

main().catch((e) => { console.error(e.message); process.exit(1) })
