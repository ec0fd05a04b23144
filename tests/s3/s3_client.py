#!/usr/bin/python3
"""The tests' S3 client: boto3 (Debian's python3-boto3), a real SDK, never ingestd itself.

    s3_client.py mb BUCKET                       creates the bucket (exists already: fine)
    s3_client.py put BUCKET FILE KEY [KEY...]    uploads FILE under every KEY
    s3_client.py put-files BUCKET DIR PREFIX     uploads DIR/NAME under PREFIX+NAME for every
                                                 NAME read from stdin, one a line
    s3_client.py get BUCKET KEY OUT              writes the object to OUT; exit 3 when missing
    s3_client.py head BUCKET KEY                 prints the reply headers, `name: value`
                                                 lowercase; exit 3 when missing

Endpoint, credentials and region from the AWS_* variables, path-style addressing.
"""
import concurrent.futures
import os
import sys

import boto3
import botocore.exceptions
from botocore.config import Config


def client():
    return boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                        region_name=os.environ.get("AWS_REGION", "us-east-1"),
                        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))


def upload(s3, path, bucket, key):
    if os.path.getsize(path) < 8 << 20:
        with open(path, "rb") as body:
            s3.put_object(Bucket=bucket, Key=key, Body=body)
    else:
        s3.upload_file(path, bucket, key)  # multipart


def main():
    op, bucket, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    s3 = client()
    try:
        if op == "mb":
            try:
                s3.create_bucket(Bucket=bucket)
            except s3.exceptions.BucketAlreadyOwnedByYou:
                pass
        elif op == "put":
            for key in args[1:]:
                upload(s3, args[0], bucket, key)
        elif op == "put-files":
            names = sys.stdin.read().splitlines()
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda n: upload(s3, os.path.join(args[0], n), bucket, args[1] + n), names))
        elif op == "get":
            s3.download_file(bucket, args[0], args[1])
        elif op == "head":
            headers = s3.head_object(Bucket=bucket, Key=args[0])["ResponseMetadata"]["HTTPHeaders"]
            for name, value in headers.items():
                print("%s: %s" % (name.lower(), value))
        else:
            sys.exit("s3_client.py: unknown operation " + op)
    except botocore.exceptions.ClientError as e:
        code = e.response.get("Error", {}).get("Code", "")
        if code in ("404", "NoSuchKey", "NotFound"):
            sys.exit(3)
        sys.exit("s3_client.py %s: %s" % (op, e))


if __name__ == "__main__":
    main()
